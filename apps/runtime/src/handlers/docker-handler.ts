import { statSync } from 'node:fs';
import { InvalidInputError, NotFoundError } from '@svc/common';
import type { StreamContext, StreamHandler } from '../tunnel/stream-router';
import { forwardTo } from './forward-handler';
import type { OperationStream } from '../tunnel/operation-stream';

/**
 * `/v1/docker` `{}`: a byte stream to the device's container engine socket, so that a `docker`
 * CLI on the caller's machine talks to this engine (docker_exec). The socket is looked up per
 * stream, not at start: an engine started after the runtime is found, one that went away is
 * reported. `sockets` is the configured path alone, or the usual places in order.
 */
export function dockerHandler(sockets: readonly string[]): StreamHandler {
  return (stream: OperationStream, args: Record<string, unknown>, context: StreamContext) => {
    const unknown = Object.keys(args);
    if (unknown.length > 0) throw new InvalidInputError(`docker: unknown field ${unknown[0]}`);
    const path = findEngineSocket(sockets);
    if (path === undefined) {
      throw new NotFoundError(`No container engine socket on the device (looked for ${sockets.join(', ')}); start the engine or set the runtime's --docker-socket / SVC_DOCKER_SOCKET`);
    }
    return forwardTo(stream, { kind: 'unix', path }, context);
  };
}

/** The first of `sockets` that is a socket now: what the docker operation and image updates talk to. */
export function findEngineSocket(sockets: readonly string[]): string | undefined {
  return sockets.find((path) => {
    try {
      return statSync(path).isSocket();
    } catch {
      return false;
    }
  });
}
