/**
 * A runtime that does not trust the server's tunnel certificate (no --ca, no --pin against a
 * staging server's self-signed one) says what to pass, once and then rarely, instead of retrying
 * in silence. Over both carriers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useFleet } from './fixtures/fleet';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { eventually } from './fixtures/eventually';

describe.each(['tcp', 'quic'] as const)('a runtime without --ca (%s carrier)', (carrier) => {
  const home = mkdtempSync(join(tmpdir(), 'svc-trust-hint-'));
  let runtime: RuntimeProcess | undefined;
  // Declared before the fleet, so that it runs first: the runtime (the test's own: the fleet's would be given the CA) stops before the server.
  afterAll(async () => {
    runtime?.kill('SIGKILL');
    await runtime?.exited;
    rmSync(home, { recursive: true, force: true });
  });
  const fleet = useFleet({ relay: true, users: { alice: 'alice@trust.test' }, devices: { [`trust-${carrier}`]: { owner: 'alice' } } });

  it('logs what to pass, naming --ca and --pin with the fingerprint the server announces, once', async () => {
    const server = fleet.server;
    const apiKey = fleet.device(`trust-${carrier}`).apiKey;
    runtime = startRuntimeProcess(['run', '--transport', carrier], { HOME: home, SVC_CONFIG_DIR: join(home, 'svc'), SVC_SERVER_URL: server.url, SVC_API_KEY: apiKey });
    const hint = await runtime.waitForLog('the server certificate is not trusted');
    expect(hint.level).toBe('error');
    expect(String(hint.hint)).toContain('--ca <file>');
    expect(String(hint.hint)).toContain(`--pin sha256:${server.tunnel!.certificateSha256}`);
    // Retries go on (backing off), but the hint is not repeated at each one.
    const failures = () => runtime!.stderr.filter((l) => l.includes('"tunnel connection failed"')).length;
    await eventually('three failed attempts', () => failures() >= 3, { timeoutMs: 30_000 }).catch(() => undefined);
    expect(failures()).toBeGreaterThanOrEqual(3);
    expect(runtime.stderr.filter((l) => l.includes('the server certificate is not trusted'))).toHaveLength(1);
  });
});
