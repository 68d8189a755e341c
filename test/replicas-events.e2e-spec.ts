/**
 * Events between replicas on NATS: a revocation (reject, re-key) or a deployment change made on
 * replica A reaches the device whose tunnel replica B (a real server process) holds at once, not
 * at B's next storage sweep (5 s) or head poll (3 s). With NATS stopped, the sweep and the poll
 * still get there within one period. Times are measured from just before A's request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDeviceIdentity } from '@svc/common';
import type { Caller } from './fixtures/api-client';
import { ChannelEnd } from './fixtures/deployments';
import { eventually } from './fixtures/eventually';
import { NatsServerHandle, startNatsServer } from './fixtures/nats-server';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { ReplicaPair, startReplicaPair } from './fixtures/replica-process';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { connectRuntimeStub, RuntimeStub } from './fixtures/tunnel-runtime-stub';
import { registerDevice, requestRegistration } from './fixtures/test-server';
import { REVOCATION_SWEEP_MS } from '../apps/server/src/registrations/device-revocations';
import { HEAD_POLL_MS } from '../apps/server/src/deployments/deployment-channels.service';

const ALICE = 'alice@replica-events.test';
/** The bound for an event between replicas. */
const EVENT_MS = 1_000;
/**
 * With NATS stopped the bound is one sweep or poll period (a change lands just after one ran and
 * the next finds it); on top, room for a loaded 2-core machine: B's timer firing late, the storage
 * read and the close or the write to the device, the stub noticing.
 */
const FALLBACK_MARGIN_MS = 1_500;

describe('replicas on NATS: revocations and deployment changes reach the holder at once', () => {
  let nats: NatsServerHandle;
  let idp: IdentityProviderHandle;
  let replicas: ReplicaPair;
  let alice: Caller;
  let home: string;
  const runtimes: RuntimeProcess[] = [];
  const stubs: RuntimeStub[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    idp = await startIdentityProvider();
    home = mkdtempSync(join(tmpdir(), 'svc-replica-events-'));
    replicas = await startReplicaPair(idp, nats.url);
    alice = await replicas.a.login(ALICE);
  });

  afterAll(async () => {
    for (const stub of stubs) stub.close();
    for (const runtime of runtimes) runtime.kill('SIGKILL');
    await Promise.all(runtimes.map((runtime) => runtime.exited));
    await replicas?.close();
    await idp?.stop();
    await nats?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  /** A tunnel to B for a new device (a runtime stub: it tells exactly when its tunnel closes). */
  async function stubOnB(deviceId: string, handlers: Parameters<typeof connectRuntimeStub>[0]['handlers'] = {}): Promise<RuntimeStub> {
    const apiKey = await registerDevice(replicas.a, deviceId, `user:${ALICE}`, alice);
    const stub = await connectRuntimeStub({ port: replicas.b.tunnelPort, ca: replicas.a.tunnel!.caFile, apiKey, handlers });
    stubs.push(stub);
    await onlineOnA(deviceId);
    return stub;
  }

  const onlineOnA = (deviceId: string) => eventually(`${deviceId} online on A`, async () => (await replicas.a.api.get(`/devices/${deviceId}/status`, alice)).body.status === 'online');

  /** Resolves with the milliseconds `promise` took from `since`, or rejects after `limitMs`. */
  async function within(promise: Promise<unknown>, since: number, limitMs: number, what: string): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${limitMs} ms`)), limitMs)));
    try {
      await Promise.race([promise, late]);
      return Date.now() - since;
    } finally {
      clearTimeout(timer);
    }
  }

  it('rejecting on A closes the tunnel of a real runtime held by B in under a second', async () => {
    const deviceId = 'ev-reject';
    const apiKey = await registerDevice(replicas.a, deviceId, `user:${ALICE}`, alice);
    const runtime = startRuntimeProcess(['run'], { HOME: home, SVC_CONFIG_DIR: join(home, deviceId), SVC_SERVER_URL: replicas.b.url, SVC_CA_FILE: replicas.a.tunnel!.caFile, SVC_API_KEY: apiKey });
    runtimes.push(runtime);
    await runtime.waitForLog('tunnel up');
    await onlineOnA(deviceId);
    const after = runtime.stderr.length;
    const started = Date.now();
    expect((await replicas.a.api.post('/devices/reject', { device: deviceId }, alice)).status).toBe(200);
    const lost = await runtime.waitForLog('tunnel lost', after);
    expect(Date.parse(lost.time as string) - started).toBeLessThan(EVENT_MS);
  });

  it('re-keying on A closes the old key\'s tunnel on B in under a second', async () => {
    const deviceId = 'ev-rekey';
    const stub = await stubOnB(deviceId);
    const requestId = await requestRegistration(replicas.a, deviceId, `user:${ALICE}`, { identity: generateDeviceIdentity() });
    // From just before the approval (it revokes the old key), not before the new key's registration request.
    const started = Date.now();
    expect((await replicas.a.api.post('/devices/approve', { request_id: requestId }, alice)).status).toBe(200);
    expect(await within(stub.closed, started, EVENT_MS, 'the old tunnel to close')).toBeLessThan(EVENT_MS);
  });

  it('a deployment change on A reaches the device held by B in under a second', async () => {
    const deviceId = 'ev-deploy';
    const channel = new ChannelEnd();
    await stubOnB(deviceId, { deployments: channel.handler });
    await channel.next();
    const started = Date.now();
    const created = await replicas.a.api.post(`/devices/${deviceId}/deployments`, { active: true }, alice);
    expect(created.status).toBe(201);
    const arrived = channel.next((desired) => desired.deployment?.id === created.body.id);
    expect(await within(arrived, started, EVENT_MS, 'the desired state to reach the device')).toBeLessThan(EVENT_MS);
  });

  it('a replica still holding a tunnel of a device that connected to another replica since closes it', async () => {
    const deviceId = 'ev-takeover';
    const apiKey = await registerDevice(replicas.a, deviceId, `user:${ALICE}`, alice);
    const onA = await connectRuntimeStub({ port: replicas.a.tunnel!.port, ca: replicas.a.tunnel!.caFile, apiKey });
    stubs.push(onA);
    await onlineOnA(deviceId);
    // The same runtime shows up on B while A's tunnel looks alive to A (say, half-open after a network change).
    const onB = await connectRuntimeStub({ port: replicas.b.tunnelPort, ca: replicas.a.tunnel!.caFile, apiKey });
    stubs.push(onB);
    const started = Date.now();
    expect(await within(onA.closed, started, EVENT_MS * 10, 'A to close its stale tunnel')).toBeLessThan(EVENT_MS * 10);
    // B's tunnel stays, and both replicas say so.
    for (const api of [replicas.a.api, replicas.b.api]) {
      await eventually('the device online at B', async () => (await api.get(`/devices/${deviceId}/status`, alice)).body.status === 'online');
    }
    expect((await replicas.a.api.post('/api/exec', { device: deviceId, command: ['true'] }, alice)).status).not.toBe(503);
  });

  it('with NATS stopped, the storage sweep (reject, re-key) and the head poll still reach the device held by B within one period', async () => {
    const rejected = await stubOnB('ev-fallback-reject');
    const rekeyed = await stubOnB('ev-fallback-rekey');
    const channel = new ChannelEnd();
    await stubOnB('ev-fallback-deploy', { deployments: channel.handler });
    await channel.next();
    await nats.halt();
    try {
      let started = Date.now();
      expect((await replicas.a.api.post('/devices/reject', { device: 'ev-fallback-reject' }, alice)).status).toBe(200);
      await within(rejected.closed, started, REVOCATION_SWEEP_MS + FALLBACK_MARGIN_MS, 'the sweep to close the rejected tunnel');
      const requestId = await requestRegistration(replicas.a, 'ev-fallback-rekey', `user:${ALICE}`, { identity: generateDeviceIdentity() });
      started = Date.now();
      expect((await replicas.a.api.post('/devices/approve', { request_id: requestId }, alice)).status).toBe(200);
      await within(rekeyed.closed, started, REVOCATION_SWEEP_MS + FALLBACK_MARGIN_MS, "the sweep to close the old key's tunnel");
      started = Date.now();
      const created = await replicas.a.api.post('/devices/ev-fallback-deploy/deployments', { active: true }, alice);
      expect(created.status).toBe(201);
      await within(
        channel.next((desired) => desired.deployment?.id === created.body.id),
        started,
        HEAD_POLL_MS + FALLBACK_MARGIN_MS,
        'the head poll to send the desired state',
      );
    } finally {
      await nats.restart();
    }
  });
});
