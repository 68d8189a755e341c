import { connect, Socket } from 'node:net';
import {
  ConnectionRefusedError,
  describeForwardTarget,
  DomainError,
  ForbiddenError,
  ForwardTarget,
  http2End,
  NotFoundError,
  parseTcpForwardArgs,
  parseUnixForwardArgs,
  socketEnd,
  splice,
  TimeoutError,
} from '@svc/common';
import type { StreamContext } from '../tunnel/stream-router';
import type { OperationStream } from '../tunnel/operation-stream';

/** A target that neither accepts nor refuses within this time is reported as a timeout. */
const CONNECT_TIMEOUT_MS = 10_000;

/** `/v1/forward/tcp` `{host?, port}`: a TCP connection from the device (host defaults to itself). */
export function handleForwardTcp(stream: OperationStream, args: Record<string, unknown>, context: StreamContext): Promise<void> {
  return forwardTo(stream, parseTcpForwardArgs(args), context);
}

/** `/v1/forward/unix` `{path}`: a connection to a unix socket on the device. */
export function handleForwardUnix(stream: OperationStream, args: Record<string, unknown>, context: StreamContext): Promise<void> {
  return forwardTo(stream, parseUnixForwardArgs(args), context);
}

/**
 * Connects first and answers `:status 200` only once the target accepted, so a refused or missing
 * target is a clean refusal before any byte. Then the stream and the socket are spliced: bytes
 * both ways under HTTP/2 flow control, END_STREAM ↔ FIN, RST_STREAM ↔ reset. The docker
 * operation is this too, to the engine's socket.
 */
export async function forwardTo(stream: OperationStream, target: ForwardTarget, context: StreamContext): Promise<void> {
  const socket = await connectTarget(target);
  if (stream.destroyed) {
    socket.destroy();
    return;
  }
  stream.respond({ ':status': 200 });
  const tunnelSide = http2End(stream);
  const targetSide = socketEnd(socket);
  const spliced = splice(tunnelSide, targetSide);
  // A runtime shutting down cuts its forwards like any lost peer would.
  context.operations.add({
    abort: () => {
      targetSide.abort();
      tunnelSide.abort();
    },
    done: spliced.then(() => undefined),
  });
  const outcome = await spliced;
  context.log.debug('forward closed', { target: describeForwardTarget(target), aborted: outcome.aborted, error: outcome.error?.message });
}

function connectTarget(target: ForwardTarget): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket =
      target.kind === 'tcp'
        ? connect({ host: target.host, port: target.port, allowHalfOpen: true, noDelay: true })
        : connect({ path: target.path, allowHalfOpen: true });
    const timer = setTimeout(() => fail(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })), CONNECT_TIMEOUT_MS);
    const fail = (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      reject(connectError(target, error));
    };
    socket.once('error', fail);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

/** Why the device could not reach the target, as the error code the caller sees. */
function connectError(target: ForwardTarget, error: NodeJS.ErrnoException): DomainError {
  const where = describeForwardTarget(target);
  switch (error.code) {
    case 'ECONNREFUSED':
      return new ConnectionRefusedError(`Connection refused by ${where} on the device`);
    case 'ENOENT':
      return new NotFoundError(`No socket at ${where} on the device`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new NotFoundError(`The device cannot resolve the host of ${where}`);
    case 'EACCES':
    case 'EPERM':
      return new ForbiddenError(`The runtime may not connect to ${where} (permission denied on the device)`);
    case 'ETIMEDOUT':
      return new TimeoutError(`No answer from ${where} within ${CONNECT_TIMEOUT_MS / 1000} s`);
    default:
      return new ConnectionRefusedError(`The device cannot reach ${where}: ${error.code ?? error.message}`);
  }
}
