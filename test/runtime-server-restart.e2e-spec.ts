/**
 * "Server restarted → runtimes reconnect by themselves": a real runtime process against a server
 * that is closed and started again on the same ports and the same data directory (as after an
 * upgrade or a crash). The same runtime process — not a restarted one — is online on the new
 * server and runs commands there. Over both carriers. (At fleet size, `npm run bench` measures
 * 1,000 runtimes coming back.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from './fixtures/api-client';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { registerDevice, startTestServer, TestServer } from './fixtures/test-server';
import { freePort, freeTunnelPort } from './fixtures/free-port';
import { eventually } from './fixtures/eventually';

const WAIT_MS = 45_000;

describe.each(['tcp', 'quic'] as const)('runtime across a server restart (%s carrier)', (carrier) => {
  let idp: IdentityProviderHandle;
  let server: TestServer | undefined;
  let runtime: RuntimeProcess | undefined;
  let dataDir: string;
  let home: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    idp = await startIdentityProvider();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-restart-data-'));
    home = mkdtempSync(join(tmpdir(), 'svc-restart-home-'));
    env = { DATA_DIR: dataDir, REST_PORT: String(await freePort()), UNIFIED_PORT: String(await freeTunnelPort()) };
  });
  afterAll(async () => {
    runtime?.kill('SIGKILL');
    await runtime?.exited;
    await server?.close();
    await idp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  async function statusOn(on: TestServer, caller: Caller, deviceId: string, wanted: string): Promise<unknown> {
    const statusNow = async () => ((await on.api.get(`/devices/${deviceId}/status`, caller)).body as { status?: string }).status;
    // Past the deadline the test's own expectation reports the status seen then.
    await eventually(`${deviceId} ${wanted}`, async () => (await statusNow()) === wanted, { timeoutMs: WAIT_MS }).catch(() => undefined);
    return statusNow();
  }

  it('reconnects by itself, in the same process, and runs commands on the new server', async () => {
    server = await startTestServer(idp, env);
    const alice = await server.login('alice@restart.test');
    const deviceId = `rt-restart-${carrier}`;
    const apiKey = await registerDevice(server, deviceId, 'user:alice@restart.test', alice);
    runtime = startRuntimeProcess(['run', '--transport', carrier], {
      HOME: home,
      SVC_CONFIG_DIR: join(home, 'svc'),
      SVC_SERVER_URL: server.url,
      SVC_CA_FILE: server.tunnel!.caFile,
      SVC_API_KEY: apiKey,
    });
    expect(await statusOn(server, alice, deviceId, 'online')).toBe('online');

    await server.close();
    server = undefined;
    await runtime.waitForLog('tunnel lost');

    // Same ports, same data (devices, keys, the staging certificate): a restarted server.
    server = await startTestServer(idp, env);
    expect(await statusOn(server, alice, deviceId, 'online')).toBe('online');
    const exec = await server.api.post('/api/exec', { device: deviceId, command: ['echo', 'back'] }, alice);
    expect(exec.status).toBe(200);
    expect(exec.body).toMatchObject({ output: 'back\n', exit_code: 0 });
    expect(runtime.child.exitCode).toBeNull(); // the first process, never restarted
  });
});
