/**
 * Stopping the server (what SIGINT/SIGTERM run: Nest's shutdown hooks) closes every tunnel with a
 * reason, over both carriers: a real runtime process logs "server shutting down" at once (not a
 * keep-alive timeout 20-30 s later) and starts reconnecting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { registerDevice, startTestServer, TestServer } from './fixtures/test-server';

describe.each(['tcp', 'quic'] as const)('server shutdown (%s carrier)', (carrier) => {
  let idp: IdentityProviderHandle;
  let server: TestServer | undefined;
  let runtime: RuntimeProcess | undefined;
  let home: string;

  beforeAll(async () => {
    idp = await startIdentityProvider();
    home = mkdtempSync(join(tmpdir(), 'svc-shutdown-'));
  });
  afterAll(async () => {
    runtime?.kill('SIGKILL');
    await runtime?.exited;
    await server?.close();
    await idp?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('tells the runtime why its tunnel closes, and the runtime reconnects', async () => {
    server = await startTestServer(idp, { UNIFIED_PORT: '0' });
    const alice = await server.login('alice@shutdown.test');
    const apiKey = await registerDevice(server, `shut-${carrier}`, 'user:alice@shutdown.test', alice);
    runtime = startRuntimeProcess(['run', '--transport', carrier], {
      HOME: home,
      SVC_CONFIG_DIR: join(home, 'svc'),
      SVC_SERVER_URL: server.url,
      SVC_CA_FILE: server.tunnel!.caFile,
      SVC_API_KEY: apiKey,
    });
    await runtime.waitForLog('tunnel up');
    const before = runtime.stderr.length;

    await server.close();
    server = undefined;

    const notice = await runtime.waitForLog('server closing the tunnel', before);
    expect(notice.reason).toBe('server shutting down');
    const lost = await runtime.waitForLog('tunnel lost', before);
    expect(lost.reason).toBe('server closed the tunnel: server shutting down');
    await runtime.waitForLog('reconnecting', before);
  });
});
