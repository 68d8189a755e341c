/**
 * Events between replicas on NATS: a revocation (reject, re-key) or a deployment change made on
 * replica A reaches the device whose tunnel replica B (a real server process) holds at once, not
 * at B's next storage sweep (5 s) or head poll (3 s). With NATS stopped, the sweep and the poll
 * still get there within one period. Times are measured from just before A's request.
 */
import { generateDeviceIdentity } from '@svc/common';
import { ChannelEnd } from './fixtures/deployments';
import { eventually } from './fixtures/eventually';
import { useReplicaFleet } from './fixtures/replica-fleet';
import { RuntimeStubOptions, RuntimeStub } from './fixtures/tunnel-runtime-stub';
import { requestRegistration } from './fixtures/test-server';
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
  const fleet = useReplicaFleet({ users: { alice: ALICE } });
  const onA = () => fleet.user('alice').on('a');

  /** A tunnel to B for a new device (a runtime stub: it tells exactly when its tunnel closes). */
  async function stubOnB(deviceId: string, handlers: RuntimeStubOptions['handlers'] = {}): Promise<RuntimeStub> {
    await fleet.addDevice(deviceId, { owner: 'alice' });
    const stub = await fleet.stub(deviceId, 'b', handlers);
    await onlineOnA(deviceId);
    return stub;
  }

  const onlineOn = (on: 'a' | 'b', device: string) => eventually(`${device} online on ${on.toUpperCase()}`, async () => (await fleet.user('alice').on(on).route('device_status.one', { device })).status === 'online');
  const onlineOnA = (device: string) => onlineOn('a', device);
  /** Approves on A: the REST route as `svc devices approve --yes` sends it, replacing the key (the runner's devices_approve, an agent's, refuses that). */
  const approveOnA = (requestId: string) => onA().client.call('devices_approve', { device: requestId });

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
    const runtime = (await fleet.addDevice(deviceId, { owner: 'alice', runtime: { on: 'b' } })).runtime!;
    await onlineOnA(deviceId);
    const after = runtime.stderr.length;
    const started = Date.now();
    await onA().run('devices_reject', { device: deviceId });
    const lost = await runtime.waitForLog('tunnel lost', after);
    expect(Date.parse(lost.time as string) - started).toBeLessThan(EVENT_MS);
  });

  it('re-keying on A closes the old key\'s tunnel on B in under a second', async () => {
    const deviceId = 'ev-rekey';
    const stub = await stubOnB(deviceId);
    const requestId = await requestRegistration(fleet.a, deviceId, `user:${ALICE}`, { identity: generateDeviceIdentity() });
    // From just before the approval (it revokes the old key), not before the new key's registration request.
    const started = Date.now();
    await approveOnA(requestId);
    expect(await within(stub.closed, started, EVENT_MS, 'the old tunnel to close')).toBeLessThan(EVENT_MS);
  });

  it('a deployment change on A reaches the device held by B in under a second', async () => {
    const deviceId = 'ev-deploy';
    const channel = new ChannelEnd();
    await stubOnB(deviceId, { deployments: channel.handler });
    await channel.next();
    const started = Date.now();
    const created = await onA().run('device_deployment_new', { device: deviceId, active: true });
    const arrived = channel.next((desired) => desired.deployment?.id === created.id);
    expect(await within(arrived, started, EVENT_MS, 'the desired state to reach the device')).toBeLessThan(EVENT_MS);
  });

  it('a replica still holding a tunnel of a device that connected to another replica since closes it', async () => {
    const deviceId = 'ev-takeover';
    await fleet.addDevice(deviceId, { owner: 'alice' });
    const heldByA = await fleet.stub(deviceId, 'a');
    await onlineOnA(deviceId);
    // The same runtime shows up on B while A's tunnel looks alive to A (say, half-open after a network change).
    await fleet.stub(deviceId, 'b');
    const started = Date.now();
    expect(await within(heldByA.closed, started, EVENT_MS * 10, 'A to close its stale tunnel')).toBeLessThan(EVENT_MS * 10);
    // B's tunnel stays, and both replicas say so.
    for (const on of ['a', 'b'] as const) await onlineOn(on, deviceId);
    expect(await onA().attempt('device_exec', { device: deviceId, command: ['true'] })).not.toMatchObject({ ok: false, error: { status: 503 } });
  });

  it('with NATS stopped, the storage sweep (reject, re-key) and the head poll still reach the device held by B within one period', async () => {
    const rejected = await stubOnB('ev-fallback-reject');
    const rekeyed = await stubOnB('ev-fallback-rekey');
    const channel = new ChannelEnd();
    await stubOnB('ev-fallback-deploy', { deployments: channel.handler });
    await channel.next();
    await fleet.nats.halt();
    try {
      let started = Date.now();
      await onA().run('devices_reject', { device: 'ev-fallback-reject' });
      await within(rejected.closed, started, REVOCATION_SWEEP_MS + FALLBACK_MARGIN_MS, 'the sweep to close the rejected tunnel');
      const requestId = await requestRegistration(fleet.a, 'ev-fallback-rekey', `user:${ALICE}`, { identity: generateDeviceIdentity() });
      started = Date.now();
      await approveOnA(requestId);
      await within(rekeyed.closed, started, REVOCATION_SWEEP_MS + FALLBACK_MARGIN_MS, "the sweep to close the old key's tunnel");
      started = Date.now();
      const created = await onA().run('device_deployment_new', { device: 'ev-fallback-deploy', active: true });
      await within(
        channel.next((desired) => desired.deployment?.id === created.id),
        started,
        HEAD_POLL_MS + FALLBACK_MARGIN_MS,
        'the head poll to send the desired state',
      );
    } finally {
      await fleet.nats.restart();
    }
  });
});
