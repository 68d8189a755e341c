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
import type { Caller } from './fixtures/api-client';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { registerDevice, startTestServer, TestServer } from './fixtures/test-server';
import { startTransportGate, TransportGate } from './fixtures/transport-gate';
import { eventually } from './fixtures/eventually';
import { cliHome, svc, svcJson, svcLogin } from './fixtures/svc-cli';

const OWNER = 'user:alice@example.test';
const WAIT_MS = 30_000;
/** Loopback counts as far: auto then keeps QUIC, as it does for a server across the internet. */
const FAR = { SVC_QUIC_NEAR_RTT: 'off' };

describe('runtime transport selection (auto)', () => {
  let idp: IdentityProviderHandle;
  const servers: TestServer[] = [];
  const runtimes: RuntimeProcess[] = [];
  const dirs: string[] = [];
  let gate: TransportGate | undefined;

  beforeAll(async () => {
    idp = await startIdentityProvider();
  });
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) {
      rt.kill('SIGKILL');
      await rt.exited;
    }
    await gate?.close();
    gate = undefined;
    for (const server of servers.splice(0)) await server.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await idp?.stop();
  });

  async function server(env: Record<string, string> = {}): Promise<{ server: TestServer; alice: Caller }> {
    const started = await startTestServer(idp, { UNIFIED_PORT: '0', ...env });
    servers.push(started);
    return { server: started, alice: await started.login('alice@example.test') };
  }

  function runtime(server: TestServer, apiKey: string, ...flags: string[]): RuntimeProcess {
    return runtimeWith(server, apiKey, {}, ...flags);
  }

  function runtimeWith(server: TestServer, apiKey: string, env: Record<string, string>, ...flags: string[]): RuntimeProcess {
    const dir = mkdtempSync(join(tmpdir(), 'svc-rt-transport-'));
    dirs.push(dir);
    const rt = startRuntimeProcess(['run', ...flags], {
      HOME: dir,
      SVC_CONFIG_DIR: join(dir, 'svc'),
      SVC_SERVER_URL: server.url,
      SVC_CA_FILE: server.tunnel!.caFile,
      SVC_API_KEY: apiKey,
      SVC_TUNNEL_TRANSPORT: 'auto',
      ...env,
    });
    runtimes.push(rt);
    return rt;
  }

  /** Polls until the server holds the device's tunnel on `carrier`. */
  async function heldOn(server: TestServer, deviceId: string, carrier: 'quic' | 'tcp'): Promise<string | undefined> {
    const registry = server.app.get(TunnelRegistry);
    // Past the deadline the test's own expectation reports the carrier held then.
    await eventually(`${deviceId} on ${carrier}`, () => registry.sessionOf(deviceId)?.carrier === carrier, { timeoutMs: WAIT_MS, intervalMs: 50 }).catch(() => undefined);
    return registry.sessionOf(deviceId)?.carrier;
  }

  const echo = async (server: TestServer, alice: Caller, deviceId: string) =>
    (await server.api.post('/api/exec', { device: deviceId, command: ['echo', 'hi'] }, alice)).body;

  it('uses QUIC when the server offers it and UDP gets through', async () => {
    const { server: s, alice } = await server();
    expect((await s.api.get('/auth/config')).body.tunnel.transports).toEqual(['quic', 'tcp']);
    const rt = runtimeWith(s, await registerDevice(s, 'auto-quic', OWNER, alice), FAR);
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'quic' });
    expect(await heldOn(s, 'auto-quic', 'quic')).toBe('quic');
    expect(await echo(s, alice, 'auto-quic')).toMatchObject({ output: 'hi\n', exit_code: 0 });
  });

  it('uses TLS over TCP when the server runs with TUNNEL_QUIC=false', async () => {
    const { server: s, alice } = await server({ TUNNEL_QUIC: 'false' });
    expect((await s.api.get('/auth/config')).body.tunnel.transports).toEqual(['tcp']);
    const rt = runtime(s, await registerDevice(s, 'auto-tcp-only', OWNER, alice), '--quic-probe-interval', '100ms');
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'tcp' });
    expect(await echo(s, alice, 'auto-tcp-only')).toMatchObject({ output: 'hi\n', exit_code: 0 });
    expect(rt.stderr.join('\n')).not.toContain('QUIC unavailable');
  });

  it('falls back to TCP while UDP is blocked and moves back to QUIC once it passes', async () => {
    const { server: s, alice } = await server();
    gate = await startTransportGate(s.tunnel!.port);
    const rt = runtimeWith(s, await registerDevice(s, 'auto-fallback', OWNER, alice), FAR, '--tunnel', `127.0.0.1:${gate.port}`, '--quic-probe-interval', '200ms');
    await rt.waitForLog('QUIC unavailable; using TLS over TCP');
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'tcp' });
    expect(await heldOn(s, 'auto-fallback', 'tcp')).toBe('tcp');
    expect(await echo(s, alice, 'auto-fallback')).toMatchObject({ output: 'hi\n', exit_code: 0 });

    gate.allowUdp();
    await rt.waitForLog('tunnel moved to QUIC');
    expect(await heldOn(s, 'auto-fallback', 'quic')).toBe('quic');
    expect(await echo(s, alice, 'auto-fallback')).toMatchObject({ output: 'hi\n', exit_code: 0 });
    expect((await s.api.get('/devices/auto-fallback/status', alice)).body).toMatchObject({ status: 'online' });
  });

  it('on a device without a QUIC binding, auto takes TCP at once and says why in `svc runtime status` and `svc devices status`', async () => {
    const { server: s, alice } = await server();
    const apiKey = await registerDevice(s, 'auto-no-binding', OWNER, alice);
    // SVC_QUIC_BINDING=none: the runtime acts as on a platform the binding does not ship for (32-bit ARM).
    const rt = runtimeWith(s, apiKey, { SVC_QUIC_BINDING: 'none' }, '--quic-probe-interval', '100ms');
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'tcp' });
    expect(await heldOn(s, 'auto-no-binding', 'tcp')).toBe('tcp');
    const why = 'auto: QUIC unavailable on this device (SVC_QUIC_BINDING=none); using TCP';

    const device = cliHome(s, { SVC_CONFIG_DIR: join(dirs.at(-1)!, 'svc'), SVC_SYSTEMD_UNIT_DIR: join(dirs.at(-1)!, 'no-units') });
    const local = await svc(device, ['runtime', 'status']);
    expect(local.stdout).toMatch(/state: +online over tcp since/);
    expect(local.stdout).toContain(`carrier:  ${why}`);
    expect(JSON.parse((await svc(device, ['runtime', 'status', '--json'])).stdout).runtime.status).toMatchObject({ carrier: 'tcp', carrier_note: why });

    const user = cliHome(s);
    await svcLogin(user, 'alice@example.test');
    expect(await svcJson(user, ['devices', 'status', 'auto-no-binding'])).toMatchObject({ status: 'online', carrier: 'tcp', carrier_note: why });
    const shown = await svc(user, ['devices', 'status', 'auto-no-binding']);
    expect(shown.stdout).toMatch(/auto-no-binding +online +healthy +\S+ +\S+ +tcp/);
    expect(shown.stdout).toContain(`auto-no-binding: ${why}`);
    user.remove();
    device.remove();
    // Still on TCP after several probe intervals: there is nothing to probe with.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(s.app.get(TunnelRegistry).sessionOf('auto-no-binding')?.carrier).toBe('tcp');
  });

  it('to a near server auto takes TCP once QUIC measured the round trip, and says why in `svc runtime status` and `svc devices status`', async () => {
    const { server: s, alice } = await server();
    // Loopback is near at any threshold; 1 s keeps a loaded machine's round trip under it.
    const rt = runtime(s, await registerDevice(s, 'auto-near', OWNER, alice), '--quic-near-rtt', '1s', '--quic-probe-interval', '100ms');
    expect(await rt.waitForLog('server is near: tunnel on TCP')).toMatchObject({ round_trip_ms: expect.any(Number) });
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'tcp' });
    expect(await heldOn(s, 'auto-near', 'tcp')).toBe('tcp');
    expect(await echo(s, alice, 'auto-near')).toMatchObject({ output: 'hi\n', exit_code: 0 });
    const why = /^auto: the server is near \(QUIC round trip \d+ ms, under 1000 ms\), where TCP moves data faster; using TCP$/;

    const device = cliHome(s, { SVC_CONFIG_DIR: join(dirs.at(-1)!, 'svc'), SVC_SYSTEMD_UNIT_DIR: join(dirs.at(-1)!, 'no-units') });
    await eventually('runtime status on tcp', async () => JSON.parse((await svc(device, ['runtime', 'status', '--json'])).stdout).runtime.status?.carrier === 'tcp');
    expect(JSON.parse((await svc(device, ['runtime', 'status', '--json'])).stdout).runtime.status).toMatchObject({ carrier: 'tcp', carrier_note: expect.stringMatching(why) });
    expect((await svc(device, ['runtime', 'status'])).stdout).toMatch(/carrier: {2}auto: the server is near/);
    const user = cliHome(s);
    await svcLogin(user, 'alice@example.test');
    expect(await svcJson(user, ['devices', 'status', 'auto-near'])).toMatchObject({ status: 'online', carrier: 'tcp', carrier_note: expect.stringMatching(why) });
    user.remove();
    device.remove();
    // No probe moves it back: several probe intervals later it is still on TCP.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(s.app.get(TunnelRegistry).sessionOf('auto-near')?.carrier).toBe('tcp');
    expect(rt.stderr.join('\n')).not.toContain('tunnel moved to QUIC');
  });

  it('a device on QUIC shows the carrier and no note in `svc devices status`', async () => {
    const { server: s, alice } = await server();
    const rt = runtimeWith(s, await registerDevice(s, 'auto-quic-status', OWNER, alice), FAR);
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'quic' });
    const user = cliHome(s);
    await svcLogin(user, 'alice@example.test');
    const status = await svcJson<Record<string, unknown>>(user, ['devices', 'status', 'auto-quic-status']);
    expect(status).toMatchObject({ status: 'online', carrier: 'quic' });
    expect(status).not.toHaveProperty('carrier_note');
    user.remove();
  });
});
