import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { RuntimeLogger } from '../logging/runtime-logger';
import { OperationRegistry } from '../supervisor/operation-registry';
import { StreamHandlers, StreamRouter } from '../tunnel/stream-router';

/**
 * Stream handlers behind a real HTTP/2 session, the runtime's side being the server as on the
 * tunnel: started before the suite's tests, closed after them. `client()` is the session to
 * request on; `operations` the registry the handlers run in.
 */
export function useHandlerSession(handlers: StreamHandlers): { client: () => http2.ClientHttp2Session; operations: OperationRegistry } {
  const operations = new OperationRegistry();
  let server: http2.Http2Server;
  let client: http2.ClientHttp2Session;
  beforeAll(async () => {
    const router = new StreamRouter(handlers, operations, new RuntimeLogger('error'));
    server = http2.createServer();
    server.on('stream', (stream, headers) => router.handle(stream, headers));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    client.close();
    await new Promise((resolve) => server.close(resolve));
  });
  return { client: () => client, operations };
}
