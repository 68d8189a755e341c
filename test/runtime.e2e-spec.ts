/**
 * The device runtime as a real process against the real server (relay listening, TLS trusted
 * through its CA file) and a real identity provider: registration with the fingerprint check,
 * approval, online, exec (device_exec), SIGKILL and restart, rejection, the lock.
 * What depends on the carrier runs over both (`--transport tcp` and `--transport quic`); the
 * `auto` mode's fallback and move back are in runtime-transport.e2e-spec.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useFleet } from './fixtures/fleet';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { eventually } from './fixtures/eventually';

const OWNER = 'user:alice@example.test';
const WAIT_MS = 30_000;

describe('runtime (real process)', () => {
  // The runtimes are what this suite tests: it starts them itself, with their own flags.
  const fleet = useFleet({ users: { alice: 'alice@example.test' }, relay: true });
  const alice = () => fleet.user('alice');
  const dirs: string[] = [];
  const runtimes: RuntimeProcess[] = [];

  afterEach(async () => {
    for (const rt of runtimes.splice(0)) {
      rt.kill('SIGKILL');
      await rt.exited;
    }
  });
  afterAll(() => {
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
      SVC_SERVER_URL: fleet.server.url,
      SVC_CA_FILE: fleet.server.tunnel!.caFile,
    });
    runtimes.push(rt);
    return rt;
  }

  /** Waits until the request printed by the runtime is listed for the approver; returns both views. */
  async function pendingRequest(rt: RuntimeProcess) {
    const [, requestId] = await rt.waitForLine('stdout', /request (req_[A-Za-z0-9_-]+)\)/);
    const [, fingerprint] = await rt.waitForLine('stdout', /Key fingerprint: ([A-Z2-7]{4}(?:-[A-Z2-7]{4}){3})$/);
    const listed = (await alice().run('devices_list', {})) as Record<string, unknown>[];
    return { requestId, fingerprint, listed: listed.find((entry) => entry.id === requestId) };
  }

  async function deviceStatus(deviceId: string, wanted: string): Promise<Record<string, unknown>> {
    const statusNow = async () => (await alice().run('device_status', { device: deviceId })) as Record<string, unknown>;
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

      await alice().run('devices_approve', { device: requestId });
      await first.waitForLine('stdout', new RegExp(`Approved: device rt-e2e-1-${carrier} is registered`));
      expect(await first.waitForLog('tunnel up')).toMatchObject({ carrier });
      expect(await deviceStatus(`rt-e2e-1-${carrier}`, 'online')).toMatchObject({ status: 'online' });

      const file = join(dir, 'svc', 'credentials.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      expect(saved.device_credentials).toMatchObject({ api_key: expect.stringMatching(/^svc_/), device_id: `rt-e2e-1-${carrier}` });
      expect([...first.stdout, ...first.stderr].join('\n')).not.toContain(saved.device_credentials.api_key);

      const exec = await alice().run('device_exec', { device: `rt-e2e-1-${carrier}`, command: ['sh', '-c', 'echo out; echo err >&2; exit 3'] });
      expect(exec).toMatchObject({ exit_code: 3, timed_out: false });
      expect((exec as { output: string }).output).toContain('out\n');
      expect((exec as { output: string }).output).toContain('err\n');

      const withStdin = await alice().run('device_exec', { device: `rt-e2e-1-${carrier}`, command: ['cat'], stdin: 'fed through the tunnel' });
      expect(withStdin).toMatchObject({ output: 'fed through the tunnel', exit_code: 0 });

      first.kill('SIGKILL');
      await first.exited;
      expect(await deviceStatus(`rt-e2e-1-${carrier}`, 'offline')).toMatchObject({ status: 'offline' });

      const second = onCarrier(dir);
      expect(await second.waitForLog('tunnel up')).toMatchObject({ carrier });
      expect(second.stdout.join('\n')).not.toContain('Key fingerprint');
      expect(await deviceStatus(`rt-e2e-1-${carrier}`, 'online')).toMatchObject({ status: 'online' });
      const again = await alice().run('device_exec', { device: `rt-e2e-1-${carrier}`, command: ['echo', 'back'] });
      expect(again).toMatchObject({ output: 'back\n', exit_code: 0 });

      second.kill('SIGTERM');
      expect(await second.exited).toEqual({ code: 0, signal: null });
    });

    it('kills the process tree of an exec that times out', async () => {
      const dir = configDir();
      const rt = onCarrier(dir, '--owner', OWNER, '--device-id', `rt-e2e-timeout-${carrier}`);
      const { requestId } = await pendingRequest(rt);
      await alice().run('devices_approve', { device: requestId });
      await rt.waitForLog('tunnel up');
      await deviceStatus(`rt-e2e-timeout-${carrier}`, 'online');
      const exec = await alice().run('device_exec', { device: `rt-e2e-timeout-${carrier}`, command: ['sh', '-c', 'echo $$; sleep 100 & sleep 100'], timeout_secs: 1 });
      expect(exec).toMatchObject({ timed_out: true });
      const pgid = Number((exec as { output: string }).output.trim());
      expect(pgid).toBeGreaterThan(1);
      await eventually('the process group gone', () => !groupAlive(pgid), { timeoutMs: WAIT_MS }).catch(() => undefined);
      expect(groupAlive(pgid)).toBe(false);
    });

    it('on SIGTERM kills in-flight commands, closes the tunnel and exits 0', async () => {
      const dir = configDir();
      const rt = onCarrier(dir, '--owner', OWNER, '--device-id', `rt-e2e-sigterm-${carrier}`);
      const { requestId } = await pendingRequest(rt);
      await alice().run('devices_approve', { device: requestId });
      await rt.waitForLog('tunnel up');
      const marker = join(dir, 'pgid');
      const exec = alice().run('device_exec', { device: `rt-e2e-sigterm-${carrier}`, command: ['sh', '-c', `echo $$ > ${marker}; sleep 100 & sleep 100`], timeout_secs: 300 });
      const pgid = Number(await eventually('the command to start', () => existsSync(marker) && readFileSync(marker, 'utf8').trim(), { timeoutMs: WAIT_MS, intervalMs: 20 }));
      rt.kill('SIGTERM');
      expect(await rt.exited).toEqual({ code: 0, signal: null });
      // The command's end still reaches the caller: killed by SIGTERM (128 + 15).
      expect(await exec).toMatchObject({ exit_code: 143, timed_out: false });
      await eventually('the process group gone', () => !groupAlive(pgid), { timeoutMs: WAIT_MS }).catch(() => undefined);
      expect(groupAlive(pgid)).toBe(false);
    });

    it('stops retrying for good when the device is rejected while online', async () => {
      const rt = onCarrier(configDir(), '--owner', OWNER, '--device-id', `rt-e2e-revoked-${carrier}`);
      const { requestId } = await pendingRequest(rt);
      await alice().run('devices_approve', { device: requestId });
      await rt.waitForLog('tunnel up');
      await alice().run('devices_reject', { device: `rt-e2e-revoked-${carrier}` });
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
    await alice().run('devices_reject', { device: requestId });
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
