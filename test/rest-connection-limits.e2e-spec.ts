/**
 * REST_PORT under slow, unauthenticated floods (docs/security.md, "Connection limits"): connections
 * over the per-address or overall cap are closed as they arrive while /health keeps answering; a
 * JSON body that does not arrive whole within REST_BODY_TIMEOUT_MS is answered 408 and its
 * connection closed; an upload refused before its body is read is not read byte by byte for ever;
 * and headers that never end are cut after 15 s, not up to 45 s. Floods come from other loopback
 * addresses (127.0.0.2, 127.0.0.3) than the probes (127.0.0.1).
 * Not on useFleet, raw connections on purpose: servers with their own limits, floods no client makes.
 */
import { startIdentityProvider, IdentityProviderHandle } from './fixtures/oidc';
import { startTestServer, TestServer } from './fixtures/test-server';
import { eventually } from './fixtures/eventually';
import { rawRequest } from './fixtures/raw-request';
import { countClosed, rawConnection, Tracked } from './fixtures/raw-connection';

/** A registration request announcing a 60,000-byte body and sending its first byte only. */
const SLOW_BODY = 'POST /auth/device HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{';

describe('REST_PORT connection limits', () => {
  let idp: IdentityProviderHandle;
  const servers: TestServer[] = [];
  const open: Tracked[] = [];

  async function server(env: Record<string, string>): Promise<{ port: number; url: string }> {
    const started = await startTestServer(idp, env);
    servers.push(started);
    return { port: Number(new URL(started.url).port), url: started.url };
  }
  function flood(port: number, from: string, count: number, first: string = SLOW_BODY): Tracked[] {
    const list = Array.from({ length: count }, () => rawConnection(port, from, first));
    open.push(...list);
    return list;
  }
  const healthy = async (url: string) => (await rawRequest(url, 'GET', '/health', { localAddress: '127.0.0.1', headers: { connection: 'close' } })).status === 200;

  beforeAll(async () => {
    idp = await startIdentityProvider();
  });
  afterAll(async () => {
    for (const t of open) t.socket.destroy();
    for (const s of servers) await s.close();
    await idp?.stop();
  });

  it('closes connections over the per-address and the overall cap at once, and /health answers while the flood is held', async () => {
    const { port, url } = await server({ REST_MAX_CONNECTIONS_PER_ADDRESS: '40', REST_MAX_CONNECTIONS: '70', REST_BODY_TIMEOUT_MS: '600000' });
    const first = flood(port, '127.0.0.2', 60);
    await eventually('20 over the per-address cap closed', () => countClosed(first) === 20);
    const second = flood(port, '127.0.0.3', 40);
    await eventually('10 over the overall cap closed', () => countClosed(second) === 10);
    expect(countClosed(first)).toBe(20);
    await expect(healthy(url)).rejects.toThrow(); // the port is full: a stranger's first connection is refused too

    for (const t of second) t.socket.destroy();
    await eventually('/health answering while 127.0.0.2 holds its 40', () => healthy(url));
    expect(countClosed(first)).toBe(20);
  });

  it('answers a JSON body that does not arrive in time 408, with the error body, and closes its connection', async () => {
    const { port, url } = await server({ REST_BODY_TIMEOUT_MS: '1500' });
    const [slow] = flood(port, '127.0.0.2', 1);
    const trickle = setInterval(() => slow.socket.write(' '), 300);
    try {
      await eventually('the connection closed', () => slow.closed);
    } finally {
      clearInterval(trickle);
    }
    expect(slow.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(slow.received).toMatch(/\r\nconnection: close\r\n/i);
    const body = JSON.parse(slow.received.slice(slow.received.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toEqual({ statusCode: 408, error: 'Request Timeout', message: 'Request body did not arrive within 1.5 s', code: 'REQUEST_TIMEOUT', requestId: expect.any(String) });
    expect(await healthy(url)).toBe(true);
  });

  it('closes an unauthenticated upload answered 401 whose body keeps trickling', async () => {
    const { port } = await server({ REST_BODY_TIMEOUT_MS: '1500' });
    const upload = 'PUT /devices/dev-x/files/content?path=%2Ftmp%2Fa HTTP/1.1\r\nHost: svc\r\nContent-Type: application/octet-stream\r\nContent-Length: 60000\r\n\r\nx';
    const [slow] = flood(port, '127.0.0.2', 1, upload);
    const trickle = setInterval(() => slow.socket.write('x'), 300);
    try {
      await eventually('the 401', () => slow.received.startsWith('HTTP/1.1 401 '));
      await eventually('the connection closed', () => slow.closed);
    } finally {
      clearInterval(trickle);
    }
  });

  it('cuts headers that never end after 15 s (Node checks every second), answering 408', async () => {
    const { port } = await server({});
    const startedAt = Date.now();
    const [slow] = flood(port, '127.0.0.2', 1, 'GET /health HTTP/1.1\r\nHost: svc\r\n');
    const trickle = setInterval(() => slow.socket.write('X-Slow: 1\r\n'), 1000);
    try {
      // Node's default check every 30 s cut them 15-45 s after they began (here ~30 s after listen).
      await eventually('the connection cut', () => slow.closed, { timeoutMs: 22_000 });
    } finally {
      clearInterval(trickle);
    }
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(14_000);
    expect(slow.received).toMatch(/^HTTP\/1\.1 408 [^]*"code":"REQUEST_TIMEOUT"/);
  }, 60_000);
});
