/**
 * The runtime's `--transport auto` (the default) as a real process against the real server: QUIC
 * when the server offers it and UDP gets through, TLS over TCP when the server has QUIC disabled
 * or UDP is blocked, and back onto QUIC (the server swapping the tunnel atomically) once UDP
 * passes again; TLS over TCP when QUIC's round trip says the server is near. The test server is
 * on loopback, as near as a server gets: the QUIC cases treat it as far (`SVC_QUIC_NEAR_RTT=off`),
 * as a device across the internet sees its server. UDP is blocked by a loopback gate in front of
 * the tunnel port (transport-gate.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TunnelRegistry } from '../apps/server/src/relay/tunnel-registry.service';
import { Fleet, useFleet } from './fixtures/fleet';
import { RuntimeProcess } from './fixtures/runtime-process';
import { startTransportGate, TransportGate } from './fixtures/transport-gate';
import { eventually } from './fixtures/eventually';
import { cliHome, svc } from './fixtures/svc-cli';

const ALICE = 'alice@example.test';
const WAIT_MS = 30_000;
/** Loopback counts as far: auto then keeps QUIC, as it does for a server across the internet. */
const FAR = { SVC_QUIC_NEAR_RTT: 'off' };
/** `--quic-probe-interval` of the runtimes that must never move to QUIC; a test watches several intervals go by. */
const PROBE_MS = 100;
/**
 * Proves that nothing happens: no probe moves the tunnel within five probe intervals. A deliberate
 * wait (there is no event to wait for when nothing is to happen), not a guess at a duration.
 */
const noProbeMovesIt = () => new Promise((resolve) => setTimeout(resolve, 5 * PROBE_MS));

/** The runtimes of a fleet's server, each `--transport auto` (the default) in its own config directory. */
function autoRuntimes(fleet: Fleet) {
  const runtimes: RuntimeProcess[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) {
      rt.kill('SIGKILL');
      await rt.exited;
    }
  });
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    dirs,
    /** Registers `deviceId` for alice and starts its runtime; resolves once it logged `readyLog`. */
    async start(deviceId: string, env: Record<string, string>, flags: string[] = [], readyLog = 'tunnel up'): Promise<RuntimeProcess> {
      const dir = mkdtempSync(join(tmpdir(), 'svc-rt-transport-'));
      dirs.push(dir);
      const runtimeEnv = { HOME: dir, SVC_CONFIG_DIR: join(dir, 'svc'), SVC_TUNNEL_TRANSPORT: 'auto', ...env };
      const { runtime } = await fleet.addDevice(deviceId, { owner: 'alice', runtime: { args: flags, env: runtimeEnv, readyLog } });
      runtimes.push(runtime!);
      return runtime!;
    },
  };
}

describe('runtime transport selection (auto)', () => {
  const fleet = useFleet({ users: { alice: ALICE }, relay: true });
  const runtimes = autoRuntimes(fleet);
  const { dirs } = runtimes;
  let gate: TransportGate | undefined;
  const runtimeWith = (deviceId: string, env: Record<string, string>, ...flags: string[]) => runtimes.start(deviceId, env, flags);
  const runtime = (deviceId: string, ...flags: string[]) => runtimes.start(deviceId, {}, flags);

  afterEach(async () => {
    await gate?.close();
    gate = undefined;
  });

  /** Polls until the server holds the device's tunnel on `carrier`. */
  async function heldOn(deviceId: string, carrier: 'quic' | 'tcp'): Promise<string | undefined> {
    const registry = fleet.server.app.get(TunnelRegistry);
    // Past the deadline the test's own expectation reports the carrier held then.
    await eventually(`${deviceId} on ${carrier}`, () => registry.sessionOf(deviceId)?.carrier === carrier, { timeoutMs: WAIT_MS, intervalMs: 50 }).catch(() => undefined);
    return registry.sessionOf(deviceId)?.carrier;
  }

  const echo = (deviceId: string) => fleet.user('alice').run('device_exec', { device: deviceId, command: ['echo', 'hi'] });

  it('uses QUIC when the server offers it and UDP gets through', async () => {
    expect((await fleet.server.api.get('/auth/config')).body.tunnel.transports).toEqual(['quic', 'tcp']);
    const rt = await runtimeWith('auto-quic', FAR);
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'quic' });
    expect(await heldOn('auto-quic', 'quic')).toBe('quic');
    expect(await echo('auto-quic')).toMatchObject({ output: 'hi\n', exit_code: 0 });
  });

  it('falls back to TCP while UDP is blocked and moves back to QUIC once it passes', async () => {
    gate = await startTransportGate(fleet.server.tunnel!.port);
    const rt = await runtimeWith('auto-fallback', FAR, '--tunnel', `127.0.0.1:${gate.port}`, '--quic-probe-interval', '200ms');
    await rt.waitForLog('QUIC unavailable; using TLS over TCP');
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'tcp' });
    expect(await heldOn('auto-fallback', 'tcp')).toBe('tcp');
    expect(await echo('auto-fallback')).toMatchObject({ output: 'hi\n', exit_code: 0 });

    gate.allowUdp();
    await rt.waitForLog('tunnel moved to QUIC');
    expect(await heldOn('auto-fallback', 'quic')).toBe('quic');
    expect(await echo('auto-fallback')).toMatchObject({ output: 'hi\n', exit_code: 0 });
    expect(await fleet.user('alice').run('device_status', { device: 'auto-fallback' })).toMatchObject({ status: 'online' });
  });

  it('on a device without a QUIC binding, auto takes TCP at once and says why in `svc runtime status` and `svc devices status`', async () => {
    // SVC_QUIC_BINDING=none: the runtime acts as on a platform the binding does not ship for (32-bit ARM).
    const rt = await runtimeWith('auto-no-binding', { SVC_QUIC_BINDING: 'none' }, '--quic-probe-interval', `${PROBE_MS}ms`);
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'tcp' });
    expect(await heldOn('auto-no-binding', 'tcp')).toBe('tcp');
    const why = 'auto: QUIC unavailable on this device (SVC_QUIC_BINDING=none); using TCP';

    const device = cliHome(fleet.server, { SVC_CONFIG_DIR: join(dirs.at(-1)!, 'svc'), SVC_SYSTEMD_UNIT_DIR: join(dirs.at(-1)!, 'no-units') });
    const local = await svc(device, ['runtime', 'status']);
    expect(local.stdout).toMatch(/state: +online over tcp since/);
    expect(local.stdout).toContain(`carrier:  ${why}`);
    expect(JSON.parse((await svc(device, ['runtime', 'status', '--json'])).stdout).runtime.status).toMatchObject({ carrier: 'tcp', carrier_note: why });

    const user = fleet.user('alice');
    expect(await user.svcJson(['devices', 'status', 'auto-no-binding'])).toMatchObject({ status: 'online', carrier: 'tcp', carrier_note: why });
    const shown = await user.svc(['devices', 'status', 'auto-no-binding']);
    expect(shown.stdout).toMatch(/auto-no-binding +online +healthy +\S+ +\S+ +tcp/);
    expect(shown.stdout).toContain(`auto-no-binding: ${why}`);
    device.remove();
    // Still on TCP after several probe intervals: there is nothing to probe with.
    await noProbeMovesIt();
    expect(fleet.server.app.get(TunnelRegistry).sessionOf('auto-no-binding')?.carrier).toBe('tcp');
  });

  it('to a near server auto takes TCP once QUIC measured the round trip, and says why in `svc runtime status` and `svc devices status`', async () => {
    // Loopback is near at any threshold; 1 s keeps a loaded machine's round trip under it.
    const rt = await runtime('auto-near', '--quic-near-rtt', '1s', '--quic-probe-interval', `${PROBE_MS}ms`);
    expect(await rt.waitForLog('server is near: tunnel on TCP')).toMatchObject({ round_trip_ms: expect.any(Number) });
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'tcp' });
    expect(await heldOn('auto-near', 'tcp')).toBe('tcp');
    expect(await echo('auto-near')).toMatchObject({ output: 'hi\n', exit_code: 0 });
    const why = /^auto: the server is near \(QUIC round trip \d+ ms, under 1000 ms\), where TCP moves data faster; using TCP$/;

    const device = cliHome(fleet.server, { SVC_CONFIG_DIR: join(dirs.at(-1)!, 'svc'), SVC_SYSTEMD_UNIT_DIR: join(dirs.at(-1)!, 'no-units') });
    await eventually('runtime status on tcp', async () => JSON.parse((await svc(device, ['runtime', 'status', '--json'])).stdout).runtime.status?.carrier === 'tcp');
    expect(JSON.parse((await svc(device, ['runtime', 'status', '--json'])).stdout).runtime.status).toMatchObject({ carrier: 'tcp', carrier_note: expect.stringMatching(why) });
    expect((await svc(device, ['runtime', 'status'])).stdout).toMatch(/carrier: {2}auto: the server is near/);
    expect(await fleet.user('alice').svcJson(['devices', 'status', 'auto-near'])).toMatchObject({ status: 'online', carrier: 'tcp', carrier_note: expect.stringMatching(why) });
    device.remove();
    // No probe moves it back: several probe intervals later it is still on TCP.
    await noProbeMovesIt();
    expect(fleet.server.app.get(TunnelRegistry).sessionOf('auto-near')?.carrier).toBe('tcp');
    expect(rt.stderr.join('\n')).not.toContain('tunnel moved to QUIC');
  });

  it('a device on QUIC shows the carrier and no note in `svc devices status`', async () => {
    const rt = await runtimeWith('auto-quic-status', FAR);
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'quic' });
    const status = await fleet.user('alice').svcJson<Record<string, unknown>>(['devices', 'status', 'auto-quic-status']);
    expect(status).toMatchObject({ status: 'online', carrier: 'quic' });
    expect(status).not.toHaveProperty('carrier_note');
  });
});

describe('runtime transport selection (auto) against a server with TUNNEL_QUIC=false', () => {
  const fleet = useFleet({ users: { alice: ALICE }, relay: true, env: { TUNNEL_QUIC: 'false' } });
  const runtimes = autoRuntimes(fleet);

  it('uses TLS over TCP when the server runs with TUNNEL_QUIC=false', async () => {
    expect((await fleet.server.api.get('/auth/config')).body.tunnel.transports).toEqual(['tcp']);
    const rt = await runtimes.start('auto-tcp-only', {}, ['--quic-probe-interval', '100ms']);
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'tcp' });
    expect(await fleet.user('alice').run('device_exec', { device: 'auto-tcp-only', command: ['echo', 'hi'] })).toMatchObject({ output: 'hi\n', exit_code: 0 });
    expect(rt.stderr.join('\n')).not.toContain('QUIC unavailable');
  });
});
