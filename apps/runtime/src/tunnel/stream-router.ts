import { constants as http2Constants, IncomingHttpHeaders } from 'node:http2';
import {
  decodeStreamArgs,
  DomainError,
  errorFrame,
  FRAMED_TUNNEL_OPS,
  StreamRefusal,
  TUNNEL_HEADERS,
  TunnelOp,
  tunnelOpFromPath,
  TunnelProtocolError,
} from '@svc/common';
import type { RuntimeLogger } from '../logging/runtime-logger';
import type { OperationRegistry } from '../supervisor/operation-registry';
import type { OperationStream } from './operation-stream';

export interface StreamContext {
  requestId: string | undefined;
  /** The user's e-mail, for this device's own log. */
  actor: string | undefined;
  log: RuntimeLogger;
  operations: OperationRegistry;
}

/**
 * A handler validates its arguments and throws a DomainError to refuse (before it responds);
 * once it has answered `:status 200` it owns the stream.
 */
export type StreamHandler = (stream: OperationStream, args: Record<string, unknown>, context: StreamContext) => Promise<void>;

export type StreamHandlers = Partial<Record<TunnelOp, StreamHandler>>;

/** Dispatches the streams the server opens on the tunnel (`POST /v1/<op>`) to the handlers. */
export class StreamRouter {
  constructor(
    private readonly handlers: StreamHandlers,
    private readonly operations: OperationRegistry,
    private readonly log: RuntimeLogger,
  ) {}

  handle(stream: OperationStream, headers: IncomingHttpHeaders): void {
    void this.dispatch(stream, headers);
  }

  private async dispatch(stream: OperationStream, headers: IncomingHttpHeaders): Promise<void> {
    const path = headers[':path'];
    const requestId = single(headers[TUNNEL_HEADERS.requestId]);
    const log = this.log.child({ request_id: requestId, path });
    const context: StreamContext = { requestId, actor: single(headers[TUNNEL_HEADERS.actor]), log, operations: this.operations };
    stream.on('error', (error) => log.debug('stream error', { error }));
    const op = tunnelOpFromPath(path);
    try {
      if (headers[':method'] !== 'POST' || op === undefined) throw new RefusedStream(404, 'NOT_FOUND', `Unknown operation ${path}`);
      const handler = this.handlers[op];
      if (!handler) throw new RefusedStream(404, 'NOT_FOUND', `Operation ${op} is not supported by this runtime`);
      const args = decodeStreamArgs(headers[TUNNEL_HEADERS.args]);
      log.info('operation', { op, actor: context.actor });
      await handler(stream, args, context);
    } catch (error) {
      this.refuse(stream, error, log, op);
    }
  }

  private refuse(stream: OperationStream, error: unknown, log: RuntimeLogger, op: TunnelOp | undefined): void {
    const refusal = refusalFor(error);
    if (refusal.status >= 500) log.error('operation failed', { error });
    else log.info('operation refused', { code: refusal.body.code, message: refusal.body.message });
    if (stream.destroyed) return;
    if (stream.headersSent) {
      // Too late for a status: the handler failed mid-stream. A framed body says why in its last
      // frame (so the user reads the cause, not "device offline"); a byte stream can only be reset.
      if (op !== undefined && FRAMED_TUNNEL_OPS.has(op) && !stream.writableEnded) stream.end(errorFrame(refusal.body));
      else stream.close(http2Constants.NGHTTP2_INTERNAL_ERROR);
      return;
    }
    stream.respond({ ':status': refusal.status, 'content-type': 'application/json' });
    stream.end(JSON.stringify(refusal.body));
  }
}

class RefusedStream extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function refusalFor(error: unknown): { status: number; body: StreamRefusal } {
  if (error instanceof RefusedStream) return { status: error.status, body: { code: error.code, message: error.message } };
  if (error instanceof DomainError) return { status: error.status, body: { code: error.code, message: error.message } };
  if (error instanceof TunnelProtocolError) return { status: 400, body: { code: 'INVALID_INPUT', message: error.message } };
  return { status: 500, body: { code: 'INTERNAL', message: 'The runtime failed to run the operation' } };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
