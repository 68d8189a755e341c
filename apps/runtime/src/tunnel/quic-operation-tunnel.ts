import type { IncomingHttpHeaders } from 'node:http2';
import { encodeFieldBlock, FieldBlockReader, TUNNEL_HEADERS, TUNNEL_OPS, tunnelPath } from '@svc/common';
import type { RuntimeLogger } from '../logging/runtime-logger';
import { SHUTDOWN_GRACE_MS, type OperationRegistry } from '../supervisor/operation-registry';
import { QuicOperationStream } from './operation-stream';
import type { QuicTunnelSocket } from './quic-connect';
import type { StreamRouter } from './stream-router';
import type { OpenTunnel } from './open-tunnel';
import { OperationStreams } from './operation-streams';

const DEPLOYMENT_CHANNEL_PATH = tunnelPath(TUNNEL_OPS.deployments);
/** How long a graceful close waits for the server to hang up before cutting the connection. */
const CLOSE_GRACE_MS = 2000;
/** The part of the server's close message logged as its reason. */
const MAX_REASON_CHARS = 200;

export interface OperationTunnelOptions {
  deviceId: string;
  heartbeatSecs: number;
  router: StreamRouter;
  operations: OperationRegistry;
  log: RuntimeLogger;
}

/**
 * A QUIC tunnel whose server agreed (hello `streams`) to one QUIC stream per operation: the
 * hello's stream stays open as the control stream (the server's close message and reason), and
 * every stream the server opens is one operation, routed like an HTTP/2 stream (its header block
 * holds the same fields). Liveness is QUIC's own: this side PINGs every 5 s and a connection
 * silent for the idle timeout closes, which ends the tunnel.
 */
export function serveOperationStreams(socket: QuicTunnelSocket, options: OperationTunnelOptions): OpenTunnel {
  const { connection } = socket;
  const { log } = options;
  const operationStreams = new OperationStreams();
  /** Live operation streams by the number the server gave them (`svc-stream`), for its `cancel` messages. */
  const live = new Map<string, QuicOperationStream>();
  let settle!: (reason: string) => void;
  const closed = new Promise<string>((resolve) => (settle = resolve));
  let shuttingDown = false;
  let serverReason: string | undefined;
  let ended = false;
  let markGone!: () => void;
  /** Settles once the connection is gone (`closed` may settle earlier: at the server's close message). */
  const gone = new Promise<void>((resolve) => (markGone = resolve));
  const end = (reason: string) => {
    if (ended) return;
    ended = true;
    operationStreams.stop();
    socket.destroy();
    settle(shuttingDown ? 'shutdown' : serverReason ? `server closed the tunnel: ${serverReason}` : reason);
    markGone();
  };

  const messages = new FieldBlockReader();
  socket.on('data', (chunk: Buffer) => {
    try {
      for (let rest: Buffer | undefined = chunk; rest && rest.length > 0; ) {
        const block = messages.take(rest);
        if (block?.fields.type === 'goaway' && serverReason === undefined) {
          serverReason = printable(String(block.fields.reason ?? '')) || 'no reason given';
          // debug: the loop logs the reason of a tunnel it loses ('tunnel lost'); one that auto replaced itself is no news.
          log.debug('server closing the tunnel', { reason: serverReason });
          // The loop reconnects at once; the operations in flight here finish first, then this side hangs up.
          settle(`server closed the tunnel: ${serverReason}`);
          operationStreams.drain(() => end('tunnel session closed'));
        }
        if (block?.fields.type === 'cancel') live.get(String(block.fields.stream))?.cancelledByPeer();
        rest = block?.rest;
      }
    } catch (error) {
      end(`tunnel control stream: ${(error as Error).message}`);
    }
  });
  socket.on('error', (error) => end(`tunnel connection failed: ${error.message}`));
  socket.on('close', () => end('tunnel connection closed by the server'));
  socket.resume();

  const serve = async (stream: QuicOperationStream) => {
    stream.on('error', (error) => log.debug('operation stream error', { error }));
    let head;
    try {
      head = await stream.readHead();
    } catch {
      stream.reset();
      return;
    }
    const number = head[TUNNEL_HEADERS.stream];
    if (typeof number === 'string') {
      live.set(number, stream);
      stream.once('close', () => live.delete(number));
    }
    // The deployment channel lives as long as the session: it never keeps the tunnel from moving to QUIC.
    if (head[':path'] !== DEPLOYMENT_CHANNEL_PATH) operationStreams.track(stream);
    options.router.handle(stream, head as IncomingHttpHeaders);
  };
  void (async () => {
    for (;;) {
      let native;
      try {
        native = await connection.inboundStream();
      } catch {
        end('tunnel connection closed by the server');
        return;
      }
      if (ended) return;
      void serve(new QuicOperationStream(native, socket.remoteAddress));
    }
  })();

  return {
    carrier: 'quic',
    deviceId: options.deviceId,
    busy: () => operationStreams.busy(),
    heartbeatSecs: options.heartbeatSecs,
    closed,
    async close() {
      shuttingDown = true;
      const left = await options.operations.abortAll('shutdown', SHUTDOWN_GRACE_MS);
      if (left > 0) log.warn('operations still running at shutdown; closing the tunnel anyway', { operations: left });
      const cut = setTimeout(() => end('shutdown'), CLOSE_GRACE_MS);
      if (!socket.destroyed) socket.end(encodeFieldBlock({ type: 'goaway', reason: 'runtime shutting down' }));
      await gone;
      clearTimeout(cut);
    },
  };
}

function printable(text: string): string {
  return text.slice(0, MAX_REASON_CHARS).replace(/[^\x20-\x7e]+/g, ' ').trim();
}
