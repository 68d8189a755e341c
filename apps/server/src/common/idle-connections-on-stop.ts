import type { Server } from 'node:http';

/**
 * Once the REST server stops listening (shutdown: Nest closes it after the first shutdown hooks),
 * Node closes the keep-alive connections idle at that moment, but one whose last answer ends a
 * moment later (a stream cut by the shutdown itself: a job log followed, an exec streamed) would
 * then wait out keepAliveTimeout (65 s) and hold the process's exit. Each answer that ends after
 * the stop closes the connections idle by then, so the server stops once its last request ends.
 */
export function closeIdleConnectionsOnStop(server: Server): void {
  server.on('request', (_req, res) => {
    res.once('finish', () => {
      if (!server.listening) setImmediate(() => server.closeIdleConnections());
    });
  });
}
