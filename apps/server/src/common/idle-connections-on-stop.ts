import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';

/**
 * A stopping REST server closes every connection that has no request in flight at once, and each
 * other one as soon as its last answer ends, so the process stops once its last request ended.
 *
 * Node's own `server.close()` closes only the keep-alive connections idle at that moment. One
 * whose answer ends a moment later (a stream cut by the shutdown itself: a job log followed, an
 * exec streamed) would wait out keepAliveTimeout (65 s). One that never sent a request is not
 * closed at all: Node counts it as active and `close()` stops the headers-timeout checks that
 * would have cut it, so a fetch client's spare connection held a test server's stop 63 s, and
 * anyone holding an empty connection could hold a stop until SIGKILL. (A TLS handshake still
 * under way is left to the TLS server's handshake timeout.)
 */
export function closeIdleConnectionsOnStop(server: Server): void {
  /** Each HTTP connection and the number of its requests whose answer has not ended. */
  const inFlight = new Map<Socket, number>();
  let stopping = false;
  const closeIfIdle = (socket: Socket) => {
    if (inFlight.get(socket) === 0) socket.destroy();
  };

  server.on(server instanceof TlsServer ? 'secureConnection' : 'connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    if (!inFlight.has(socket)) return;
    inFlight.set(socket, inFlight.get(socket)! + 1);
    res.once('close', () => {
      if (!inFlight.has(socket)) return;
      inFlight.set(socket, inFlight.get(socket)! - 1);
      // After the answer's last write: Node itself may still be finishing the response on this turn.
      if (stopping) setImmediate(() => closeIfIdle(socket));
    });
  });

  // An upgraded connection (the terminal bridge's WebSocket) belongs to its handler, which ends it on stop.
  server.on('upgrade', (req: { socket: Socket }) => {
    if (inFlight.has(req.socket)) inFlight.set(req.socket, inFlight.get(req.socket)! + 1);
  });

  const close = server.close.bind(server);
  server.close = ((callback?: (error?: Error) => void) => {
    stopping = true;
    close(callback);
    for (const socket of inFlight.keys()) closeIfIdle(socket);
    return server;
  }) as Server['close'];
}
