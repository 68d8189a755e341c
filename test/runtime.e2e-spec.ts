/**
 * The device runtime as a real process against the real server (relay listening, TLS trusted
 * through its CA file) and a real identity provider: registration with the fingerprint check,
 * approval, online, exec through POST /api/exec, SIGKILL and restart, rejection, the lock.
 * What depends on the carrier runs over both (`--transport tcp` and `--transport quic`); the
 * `auto` mode's fallback and move back are in runtime-transport.e2e-spec.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from './fixtures/api-client';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { startTestServer, TestServer } from './fixtures/test-server';
import { eventually } from './fixtures/eventually';

const OWNER = 'user:alice@example.test';
const WAIT_MS = 30_000;

describe('runtime (real process)', () => {
  let idp: IdentityProviderHandle;
  let server: TestServer;
  let alice: Caller;
  const dirs: string[] = [];
  const runtimes: RuntimeProcess[] = [];

  beforeAll(async () => {
    idp = await startIdentityProvider();
    server = await startTestServer(idp, { UNIFIED_PORT: '0' });
    alice = await server.login('alice@example.test');
  });
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) {
      rt.kill('SIGKILL');
      await rt.exited;
    }
  });
  afterAll(async () => {
    await server?.close();
    await idp?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  function configDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'svc-rt-e2e-'));
    dirs.push(dir);
    return dir;
  }

  function runtime(dir: string, ...flags: string[]): RuntimeProcess {
    const rt = startRuntimeProcess(['run', '--poll-interval', '100ms', ...flags], {
      HOME: dir,
      SVC_CONFIG_DIR: join(dir, 'svc'),
      SVC_SERVER_URL: server.url,
      SVC_CA_FILE: server.tunnel!.caFile,
    });
    runtimes.push(rt);
    return rt;
  }

  /** Waits until the request printed by the runtime is listed for the approver; returns both views. */
  async function pendingRequest(rt: RuntimeProcess) {
    const [, requestId] = await rt.waitForLine('stdout', /request (req_[A-Za-z0-9_-]+)\)/);
    const [, fingerprint] = await rt.waitForLine('stdout', /Key fingerprint: ([A-Z2-7]{4}(?:-[A-Z2-7]{4}){3})$/);
    const listed = (await server.api.get('/devices', alice)).body as Record<string, unknown>[];
    return { requestId, fingerprint, listed: listed.find((entry) => entry.id === requestId) };
  }

  async function deviceStatus(deviceId: string, wanted: string): Promise<Record<string, unknown>> {
    const statusNow = async () => (await server.api.get(`/devices/${deviceId}/status`, alice)).body as Record<string, unknown>;
    // Past the deadline the test's own expectation reports the status seen then.
    await eventually(`${deviceId} ${wanted}`, async () => (await statusNow()).status === wanted, { timeoutMs: WAIT_MS, intervalMs: 50 }).catch(() => undefined);
    return statusNow();
  }

  describe.each(['tcp', 'quic'] as const)('over %s', (carrier) => {
    const onCarrier = (dir: string, ...flags: string[]) => runtime(dir, ...flags, '--transport', carrier);

    it('registers with the fingerprint the approver sees, comes online, runs exec, and is back after SIGKILL', async () => {
      const dir = configDir();
      const first = onCarrier(dir, '--owner', OWNER, '--device-id', `rt-e2e-1-${carrier}`);
      const { requestId, fingerprint, listed } = await pendingRequest(first);
      expect(listed).toMatchObject({ status: 'pending', device_id: `rt-e2e-1-${carrier}`, fingerprint });

      expect((await server.api.post('/devices/approve', { request_id: requestId }, alice)).status).toBe(200);
      await first.waitForLine('stdout', new RegExp(`Approved: device rt-e2e-1-${carrier} is registered`));
      expect(await first.waitForLog('tunnel up')).toMatchObject({ carrier });
      expect(await deviceStatus(`rt-e2e-1-${carrier}`, 'online')).toMatchObject({ status: 'online' });

      const file = join(dir, 'svc', 'credentials.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      expect(saved.device_credentials).toMatchObject({ api_key: expect.stringMatching(/^svc_/), device_id: `rt-e2e-1-${carrier}` });
      expect([...first.stdout, ...first.stderr].join('\n')).not.toContain(saved.device_credentials.api_key);

      const exec = await server.api.post('/api/exec', { device: `rt-e2e-1-${carrier}`, command: ['sh', '-c', 'echo out; echo err >&2; exit 3'] }, alice);
      expect(exec.status).toBe(200);
      expect(exec.body).toMatchObject({ exit_code: 3, timed_out: false });
      expect(exec.body.output).toContain('out\n');
      expect(exec.body.output).toContain('err\n');

      const withStdin = await server.api.post('/api/exec', { device: `rt-e2e-1-${carrier}`, command: ['cat'], stdin: 'fed through the tunnel' }, alice);
      expect(withStdin.body).toMatchObject({ output: 'fed through the tunnel', exit_code: 0 });

      first.kill('SIGKILL');
      await first.exited;
      expect(await deviceStatus(`rt-e2e-1-${carrier}`, 'offline')).toMatchObject({ status: 'offline' });

      const second = onCarrier(dir);
      expect(await second.waitForLog('tunnel up')).toMatchObject({ carrier });
      expect(second.stdout.join('\n')).not.toContain('Key fingerprint');
      expect(await deviceStatus(`rt-e2e-1-${carrier}`, 'online')).toMatchObject({ status: 'online' });
      const again = await server.api.post('/api/exec', { device: `rt-e2e-1-${carrier}`, command: ['echo', 'back'] }, alice);
      expect(again.body).toMatchObject({ output: 'back\n', exit_code: 0 });

      second.kill('SIGTERM');
      expect(await second.exited).toEqual({ code: 0, signal: null });
    });

    it('kills the process tree of an exec that times out', async () => {
      const dir = configDir();
      const rt = onCarrier(dir, '--owner', OWNER, '--device-id', `rt-e2e-timeout-${carrier}`);
      const { requestId } = await pendingRequest(rt);
      await server.api.post('/devices/approve', { request_id: requestId }, alice);
      await rt.waitForLog('tunnel up');
      await deviceStatus(`rt-e2e-timeout-${carrier}`, 'online');
      const exec = await server.api.post('/api/exec', { device: `rt-e2e-timeout-${carrier}`, command: ['sh', '-c', 'echo $$; sleep 100 & sleep 100'], timeout_secs: 1 }, alice);
      expect(exec.body).toMatchObject({ timed_out: true });
      const pgid = Number(exec.body.output.trim());
      expect(pgid).toBeGreaterThan(1);
      await eventually('the process group gone', () => !groupAlive(pgid), { timeoutMs: WAIT_MS }).catch(() => undefined);
      expect(groupAlive(pgid)).toBe(false);
    });

    it('on SIGTERM kills in-flight commands, closes the tunnel and exits 0', async () => {
      const dir = configDir();
      const rt = onCarrier(dir, '--owner', OWNER, '--device-id', `rt-e2e-sigterm-${carrier}`);
      const { requestId } = await pendingRequest(rt);
      await server.api.post('/devices/approve', { request_id: requestId }, alice);
      await rt.waitForLog('tunnel up');
      const marker = join(dir, 'pgid');
      const exec = server.api.post('/api/exec', { device: `rt-e2e-sigterm-${carrier}`, command: ['sh', '-c', `echo $$ > ${marker}; sleep 100 & sleep 100`], timeout_secs: 300 }, alice);
      const pgid = Number(await eventually('the command to start', () => existsSync(marker) && readFileSync(marker, 'utf8').trim(), { timeoutMs: WAIT_MS, intervalMs: 20 }));
      rt.kill('SIGTERM');
      expect(await rt.exited).toEqual({ code: 0, signal: null });
      // The command's end still reaches the caller: killed by SIGTERM (128 + 15).
      expect((await exec).body).toMatchObject({ exit_code: 143, timed_out: false });
      await eventually('the process group gone', () => !groupAlive(pgid), { timeoutMs: WAIT_MS }).catch(() => undefined);
      expect(groupAlive(pgid)).toBe(false);
    });

    it('stops retrying for good when the device is rejected while online', async () => {
      const rt = onCarrier(configDir(), '--owner', OWNER, '--device-id', `rt-e2e-revoked-${carrier}`);
      const { requestId } = await pendingRequest(rt);
      await server.api.post('/devices/approve', { request_id: requestId }, alice);
      await rt.waitForLog('tunnel up');
      expect((await server.api.post('/devices/reject', { device: `rt-e2e-revoked-${carrier}` }, alice)).status).toBe(200);
      expect(await rt.exited).toEqual({ code: 3, signal: null });
      expect(rt.stderr.at(-1)).toContain("The server refused this device's API key");
    });
  });

  it('refuses to start a second runtime on the same device, naming the pid that runs', async () => {
    const dir = configDir();
    const first = runtime(dir, '--owner', OWNER, '--device-id', 'rt-e2e-lock');
    await first.waitForLine('stdout', /Key fingerprint/);
    const second = runtime(dir, '--owner', OWNER, '--device-id', 'rt-e2e-lock');
    expect(await second.exited).toEqual({ code: 4, signal: null });
    expect(second.stderr.join('\n')).toContain(`Another runtime is already running on this device (pid ${first.pid}`);
  });

  it('exits non-zero with a clear message when its registration is rejected', async () => {
    const rt = runtime(configDir(), '--owner', OWNER, '--device-id', 'rt-e2e-rejected');
    const { requestId } = await pendingRequest(rt);
    expect((await server.api.post('/devices/reject', { device: requestId }, alice)).status).toBe(200);
    expect(await rt.exited).toEqual({ code: 1, signal: null });
    expect(rt.stderr.at(-1)).toBe('Registration was rejected; this device was not given an API key');
  });

  it(`gives up with "API key not approved within timeout"`, async () => {
    const rt = runtime(configDir(), '--owner', OWNER, '--device-id', 'rt-e2e-slow', '--approval-timeout', '500ms');
    expect(await rt.exited).toEqual({ code: 1, signal: null });
    expect(rt.stderr.at(-1)).toBe('API key not approved within timeout');
  });

  it('exits 2 with a clear message when it has no owner and no terminal to ask', async () => {
    const rt = runtime(configDir(), '--device-id', 'rt-e2e-no-owner');
    expect(await rt.exited).toEqual({ code: 2, signal: null });
    expect(rt.stderr.at(-1)).toContain('No owner for this device: pass --owner');
  });
});

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
