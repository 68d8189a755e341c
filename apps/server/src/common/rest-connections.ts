import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { ConnectionCaps, ConnectionLimits } from './connection-limits';

export interface RestConnectionOptions {
  caps: ConnectionCaps;
  bodyTimeoutMs: number;
}

/**
 * REST_PORT against floods of connections that hold a file descriptor each (a body sent one byte
 * every few seconds, headers that never end). One source address holds at most
 * REST_MAX_CONNECTIONS_PER_ADDRESS connections and the port at most REST_MAX_CONNECTIONS: a
 * connection over either cap is closed as it arrives, before TLS or HTTP, so one address cannot
 * take the file descriptors that /health, the dashboard and everyone else need.
 *
 * A request answered before its body was read (a refused upload, a 401 before the body) would
 * still be read to its declared end, byte by byte at the sender's pace, to keep the connection:
 * it gets REST_BODY_TIMEOUT_MS after its answer for the rest of its body, and is closed after that.
 * (A JSON body read by the server has its own deadline: json-body.middleware.ts.)
 */
export function guardRestConnections(server: Server, options: RestConnectionOptions, report: (message: string) => void): void {
  const limits = new ConnectionLimits(options.caps, report, { perAddress: 'REST_MAX_CONNECTIONS_PER_ADDRESS', total: 'REST_MAX_CONNECTIONS' });
  server.on('connection', (socket: Socket) => limits.admit(socket));
  server.on('request', (req: IncomingMessage, res) => {
    res.once('finish', () => {
      if (!req.complete) closeUnlessEnded(req, options.bodyTimeoutMs);
    });
  });
}

function closeUnlessEnded(req: IncomingMessage, timeoutMs: number): void {
  const socket = req.socket;
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  timer.unref();
  const done = () => clearTimeout(timer);
  req.once('end', done);
  socket.once('close', done);
}
