/**
 * Container engine passthrough end to end: dockerExec (the CLI's SDK) runs the real `docker` CLI
 * against a private socket → client streams on UNIFIED_PORT → the relay → a real runtime process
 * → a real engine on the "device": Debian's podman answering the Docker API. Containers cannot
 * start in this sandbox, so the commands only read the engine.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceStreams } from '../apps/cli/src/sdk/device-streams';
import { dockerExec } from '../apps/cli/src/sdk/docker-exec';
import type { Caller } from './fixtures/api-client';
import { PodmanService, startPodmanService } from './fixtures/container-engine';
import { useFleet } from './fixtures/fleet';
import type { TestServer } from './fixtures/test-server';

const ALICE = 'alice@docker.test';

describe('docker_exec through the tunnel (real runtime, podman engine)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-docker-e2e-'));
  let streams: DeviceStreams;
  // Declared before the fleet, so that it runs first: the client's connection closes before the server.
  afterAll(async () => {
    await streams?.close();
  });
  const fleet = useFleet({ relay: true, users: { alice: ALICE }, devices: { 'dk-off': { owner: 'alice' } } });
  let server: TestServer;
  let alice: Caller;
  let engine: PodmanService;

  beforeAll(async () => {
    engine = await startPodmanService(dir);
    server = fleet.server;
    alice = fleet.user('alice').caller;
    // Its runtime uses the engine started above.
    await fleet.addDevice('dk-1', { owner: 'alice', shares: { 'viewer@docker.test': 'viewer' }, runtime: { args: ['--docker-socket', engine.socket] } });
    streams = streamsFor(alice);
  });
  // Declared after the fleet, so that it runs after it: the runtime stops before its engine.
  afterAll(async () => {
    await engine?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function streamsFor(caller: Caller): DeviceStreams {
    return new DeviceStreams({ host: '127.0.0.1', port: server.tunnel!.port, trust: { ca: readFileSync(server.tunnel!.caFile) }, token: () => caller.token! });
  }

  it('runs `docker version` against the device engine (podman answers as the server)', async () => {
    const result = await dockerExec(streams, { device: 'dk-1', args: ['version'] });
    expect(result).toMatchObject({ exit_code: 0, timed_out: false });
    expect(result.stdout).toMatch(/^Server:/m);
    expect(result.stdout).toContain('Podman Engine');
  });

  it('lists images', async () => {
    const result = await dockerExec(streams, { device: 'dk-1', args: ['images', '--format', '{{json .}}'] });
    expect(result).toMatchObject({ exit_code: 0, stderr: '' });
    // The engine's storage is the test's own: empty.
    expect(result.stdout).toBe('');
  });

  it('answers a failing docker command with its exit code as data', async () => {
    const result = await dockerExec(streams, { device: 'dk-1', args: ['inspect', 'no-such-object'] });
    expect(result.exit_code).toBe(1);
    expect(result.stderr).toMatch(/no such object/i);
  });

  it('kills a command that outlives timeout_secs and says so', async () => {
    // `docker events` streams until stopped.
    const result = await dockerExec(streams, { device: 'dk-1', args: ['events'], timeout_secs: 1 });
    expect(result).toMatchObject({ timed_out: true, exit_code: expect.any(Number) });
    expect(result.exit_code).not.toBe(0);
    expect(result.stderr).toContain('docker did not finish within 1 s and was killed');
  });

  it('hands the CLI a private socket that is gone afterwards, and no docker context', async () => {
    const result = await dockerExec(streams, {
      device: 'dk-1',
      args: ['-c', 'echo "$DOCKER_HOST|${DOCKER_CONTEXT:-none}"'],
      dockerBinary: '/bin/sh',
      env: { ...process.env, DOCKER_CONTEXT: 'elsewhere' },
    });
    const [host, context] = result.stdout.trim().split('|');
    expect(host).toMatch(/^unix:\/\/\/.+\/docker\.sock$/);
    expect(context).toBe('none');
    expect(existsSync(host.slice('unix://'.length))).toBe(false);
  });

  it('audits engine connections once per user and device per minute', async () => {
    const audited = async () => {
      const { logs } = await fleet.user('alice').route('device_audit_logs.one', { device: 'dk-1', max: 1000 });
      return (logs as { action: string; user: string }[]).filter((e) => e.action === 'device.docker_opened');
    };
    server.clock.advance(61_000);
    const before = (await audited()).length;
    await dockerExec(streams, { device: 'dk-1', args: ['version'] });
    await dockerExec(streams, { device: 'dk-1', args: ['images'] });
    expect(await audited()).toHaveLength(before + 1);
    expect((await audited())[0]).toMatchObject({ user: ALICE });
  });

  it.each([
    ['a viewer (engine access is root on the device)', 'viewer@docker.test', 'dk-1', 403, 'FORBIDDEN'],
    ['a stranger', 'stranger@docker.test', 'dk-1', 404, 'DEVICE_NOT_FOUND'],
    ['the owner of an offline device', ALICE, 'dk-off', 503, 'DEVICE_OFFLINE'],
  ])('refuses %s before the CLI runs', async (_name, email, device, statusCode, code) => {
    const caller = streamsFor(await server.login(email));
    try {
      await expect(dockerExec(caller, { device, args: ['version'] })).rejects.toMatchObject({ code, statusCode });
    } finally {
      await caller.close();
    }
  });

  it('refuses bad input before anything runs', async () => {
    await expect(dockerExec(streams, { device: 'dk-1', args: ['version'], timeout_secs: 0 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(dockerExec(streams, { device: 'dk-1', args: [1 as unknown as string] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('says so when the device has no engine socket', async () => {
    await engine.stop(); // podman removes its socket on SIGTERM
    rmSync(engine.socket, { force: true });
    await expect(dockerExec(streams, { device: 'dk-1', args: ['version'] })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      statusCode: 404,
      message: expect.stringContaining('No container engine socket on the device'),
    });
  });
});
