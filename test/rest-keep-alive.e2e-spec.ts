/**
 * A REST client that reuses an idle keep-alive connection must never meet a server closing it at
 * that moment (ECONNRESET). Node's own default closes idle connections after 5 s, inside the idle
 * time of common clients (fetch keeps them 4 s, browsers and balancers ~60 s): the server keeps
 * them 65 s (app.factory.ts, REST_TIMEOUTS). Raw sockets and paths on purpose: the connection's
 * reuse is what is tested.
 */
import { connect, Socket } from 'node:net';
import { useFleet } from './fixtures/fleet';
import { TestServer } from './fixtures/test-server';

/** Longer than Node's default keepAliveTimeout (5 s), shorter than the server's. */
const IDLE_MS = 6_500;

describe('REST keep-alive', () => {
  const fleet = useFleet({});
  let server: TestServer;

  beforeAll(() => {
    server = fleet.server;
  });

  it('answers a second request on a connection left idle longer than Node’s 5 s default', async () => {
    const url = new URL(server.url);
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    const received = collect(socket);
    const request = 'GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n';
    socket.write(request);
    await received.until((text) => countAnswers(text) === 1);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    expect(received.closed()).toBe(false);
    socket.write(request);
    const text = await received.until((all) => countAnswers(all) === 2);
    expect(text.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    socket.destroy();
  }, 30_000);
});

function countAnswers(text: string): number {
  // A status line follows the previous body directly (no line break after a JSON body).
  return (text.match(/HTTP\/1\.1 \d{3} /g) ?? []).length;
}

/** Everything the socket received; `until` resolves once `done` holds, rejects if the server closes first. */
function collect(socket: Socket) {
  let text = '';
  let ended = false;
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((waiter) => waiter());
  socket.on('data', (chunk: Buffer) => ((text += chunk.toString('latin1')), wake()));
  socket.on('close', () => ((ended = true), wake()));
  return {
    closed: () => ended,
    until: (done: (text: string) => boolean) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if (done(text)) {
            waiters.delete(check);
            resolve(text);
          } else if (ended) {
            waiters.delete(check);
            reject(new Error(`the server closed the connection; received: ${JSON.stringify(text.slice(0, 200))}`));
          }
        };
        waiters.add(check);
        check();
      }),
  };
}
