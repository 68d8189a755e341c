import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { connect, type NatsConnection } from 'nats';
import { describeTunnelDirectoryContract } from '../relay/tunnel-directory.contract';
import { NatsServerHandle, startNatsServer } from '../../../../test/fixtures/nats-server';
import { eventually } from '../../../../test/fixtures/eventually';
import { NatsTunnelDirectory, type NatsTunnelDirectoryOptions } from './nats-tunnel-directory';

const T0 = new Date('2026-01-01T10:00:00.000Z');

let nats: NatsServerHandle;
beforeAll(async () => {
  Logger.overrideLogger(false);
  nats = await startNatsServer();
});
afterAll(() => nats?.stop());

/** A replica's directory on its own connection; `crash` drops the connection as a killed process would (no goodbye). */
async function replica(options: NatsTunnelDirectoryOptions, server = nats): Promise<{ directory: NatsTunnelDirectory; nc: NatsConnection; crash(): Promise<void>; close(): Promise<void> }> {
  const nc = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const directory = await NatsTunnelDirectory.open(nc, options);
  return {
    directory,
    nc,
    crash: () => nc.close(),
    async close() {
      await directory.close();
      await nc.close();
    },
  };
}

// Each test on fresh buckets, so tests do not see each other's devices.
describeTunnelDirectoryContract('NatsTunnelDirectory', async () => {
  const namespace = `t${randomUUID().slice(0, 8)}`;
  const a = await replica({ replicaId: 'replica-a', peerAddress: 'a:8087', namespace });
  const b = await replica({ replicaId: 'replica-b', peerAddress: 'b:8087', namespace });
  return {
    a: a.directory,
    b: b.directory,
    holderA: 'replica-a',
    holderB: 'replica-b',
    close: async () => {
      await a.close();
      await b.close();
    },
  };
});

describe('NatsTunnelDirectory: compare-and-set', () => {
  it('a "lost" that read the entry before another replica took the device over does not overwrite the new holder', async () => {
    const namespace = `c${randomUUID().slice(0, 8)}`;
    const a = await replica({ replicaId: 'replica-a', peerAddress: 'a:8087', namespace });
    const b = await replica({ replicaId: 'replica-b', peerAddress: 'b:8087', namespace });
    try {
      await a.directory.connected('d1', 'replica-a', T0, { carrier: 'tcp' });
      // A reads its own entry; B takes the device over before A writes "lost".
      const kv = (a.directory as unknown as { kv: { get: (key: string) => Promise<unknown> } }).kv;
      const get = kv.get.bind(kv);
      let raced = false;
      kv.get = async (key: string) => {
        const entry = await get(key);
        if (!raced) {
          raced = true;
          await b.directory.connected('d1', 'replica-b', new Date(T0.getTime() + 1000), { carrier: 'quic' });
        }
        return entry;
      };
      await a.directory.lost('d1', 'replica-a', new Date(T0.getTime() + 2000));
      expect(raced).toBe(true);
      expect(await eventuallyLocated(b.directory, 'd1', 'connected')).toMatchObject({ holder: 'replica-b', carrier: 'quic' });
      expect(await eventuallyLocated(a.directory, 'd1', 'connected')).toMatchObject({ holder: 'replica-b', carrier: 'quic' });
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('NatsTunnelDirectory: takeovers', () => {
  it('tells a replica when another one holds a device from a newer connection, and not for older or own writes', async () => {
    const namespace = `o${randomUUID().slice(0, 8)}`;
    const a = await replica({ replicaId: 'replica-a', peerAddress: 'a:8087', namespace });
    const b = await replica({ replicaId: 'replica-b', peerAddress: 'b:8087', namespace });
    const heard: string[] = [];
    a.directory.onTakenOver((deviceId, holder) => heard.push(`${deviceId}@${holder}`));
    try {
      await a.directory.connected('d1', 'replica-a', T0, { carrier: 'tcp' });
      await b.directory.connected('d1', 'replica-b', new Date(T0.getTime() + 1000), { carrier: 'tcp' });
      await eventuallyLocated(a.directory, 'd1', 'connected');
      const deadline = Date.now() + 10_000;
      while (heard.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      // Back on A: its own write tells it nothing.
      await a.directory.connected('d1', 'replica-a', new Date(T0.getTime() + 2000), { carrier: 'tcp' });
      await b.directory.connected('d2', 'replica-b', T0, { carrier: 'tcp' });
      await eventuallyLocated(a.directory, 'd2', 'connected');
      expect(heard).toEqual(['d1@replica-b', 'd2@replica-b']);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('NatsTunnelDirectory: replica liveness', () => {
  const TTL_MS = 1_500;
  let namespace: string;
  beforeEach(() => {
    namespace = `l${randomUUID().slice(0, 8)}`;
  });

  it('reads the devices of a replica that stopped heart-beating (killed) as lost within the TTL', async () => {
    const a = await replica({ replicaId: 'replica-a', peerAddress: 'a:8087', namespace, heartbeatMs: 300, livenessTtlMs: TTL_MS });
    const b = await replica({ replicaId: 'replica-b', peerAddress: 'b:8087', namespace, heartbeatMs: 300, livenessTtlMs: TTL_MS });
    try {
      await b.directory.connected('d1', 'replica-b', T0, { carrier: 'tcp' });
      await eventuallyLocated(a.directory, 'd1', 'connected');
      expect(a.directory.liveness.peerAddressOf('replica-b')).toBe('b:8087');
      const crashedAt = Date.now();
      await b.crash();
      const location = await eventuallyLocated(a.directory, 'd1', 'lost');
      const elapsed = Date.now() - crashedAt;
      expect(location.state).toBe('lost');
      // Within the TTL (plus one poll and a loaded machine's slack), not at some later sweep.
      expect(elapsed).toBeLessThan(TTL_MS + 2_000);
      expect(a.directory.liveness.peerAddressOf('replica-b')).toBeNull();
    } finally {
      await a.close();
      await b.close();
    }
  });

  // A replica back under the same id holds none of its earlier run's tunnels: those entries stay
  // lost (it releases them on start) until a device comes back to it. This test once asserted
  // "connected" right after the restart and passed only by catching the moment before the
  // release landed; on Node 24 in CI it missed that moment.
  it('reads them lost at once when the replica stops cleanly; back, it holds them again only when the device returns', async () => {
    const a = await replica({ replicaId: 'replica-a', peerAddress: 'a:8087', namespace, livenessTtlMs: 60_000 });
    let b = await replica({ replicaId: 'replica-b', peerAddress: 'b:8087', namespace, livenessTtlMs: 60_000 });
    try {
      await b.directory.connected('d1', 'replica-b', T0, { carrier: 'tcp' });
      await eventuallyLocated(a.directory, 'd1', 'connected');
      await b.close();
      await eventuallyLocated(a.directory, 'd1', 'lost', 5_000);
      expect(a.directory.liveness.peerAddressOf('replica-b')).toBeNull();
      b = await replica({ replicaId: 'replica-b', peerAddress: 'b:8087', namespace, livenessTtlMs: 60_000 });
      await eventually('A to hear replica-b again', () => a.directory.liveness.peerAddressOf('replica-b') === 'b:8087', { timeoutMs: 5_000, intervalMs: 20 });
      expect((await b.directory.locate(['d1'])).get('d1')).toMatchObject({ state: 'lost' });
      await eventuallyLocated(a.directory, 'd1', 'lost', 5_000);
      await b.directory.connected('d1', 'replica-b', new Date(), { carrier: 'tcp' });
      await eventuallyLocated(a.directory, 'd1', 'connected', 5_000);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('answers locate from its copy while NATS is down, without expiring replicas it cannot hear', async () => {
    const a = await replica({ replicaId: 'replica-a', peerAddress: 'a:8087', namespace, heartbeatMs: 200, livenessTtlMs: 1_000 });
    const b = await replica({ replicaId: 'replica-b', peerAddress: 'b:8087', namespace, heartbeatMs: 200, livenessTtlMs: 1_000 });
    try {
      await b.directory.connected('d1', 'replica-b', T0, { carrier: 'tcp' });
      await eventuallyLocated(a.directory, 'd1', 'connected');
      const disconnected = nextStatus(a.nc, 'disconnect');
      await nats.halt();
      await disconnected;
      // Past the TTL with no heartbeat able to arrive: B is not declared dead for it.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const started = Date.now();
      expect((await a.directory.locate(['d1'])).get('d1')).toMatchObject({ state: 'connected', holder: 'replica-b' });
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await nats.restart();
      await a.close();
      await b.close();
    }
  });
});

describe('NatsTunnelDirectory: NATS back without its store', () => {
  it('creates the buckets again, rebuilds each copy from the new one and writes every tunnel each replica holds again', async () => {
    const server = await startNatsServer();
    const namespace = `w${randomUUID().slice(0, 8)}`;
    const options = { namespace, heartbeatMs: 300, livenessTtlMs: 1_500 };
    const a = await replica({ replicaId: 'replica-a', peerAddress: 'a:8087', ...options }, server);
    const b = await replica({ replicaId: 'replica-b', peerAddress: 'b:8087', ...options }, server);
    const replicas = [a];
    try {
      await a.directory.connected('d1', 'replica-a', T0, { carrier: 'tcp' });
      await b.directory.connected('d2', 'replica-b', T0, { carrier: 'quic', carrierNote: 'udp ok' });
      await b.directory.connected('d3', 'replica-b', T0, { carrier: 'tcp' });
      await b.directory.lost('d3', 'replica-b', new Date(T0.getTime() + 1000));
      await eventuallyLocated(a.directory, 'd2', 'connected');
      await eventuallyLocated(b.directory, 'd1', 'connected');

      await server.halt();
      await server.restart({ wipe: true });
      const expected = {
        d1: { state: 'connected', holder: 'replica-a', carrier: 'tcp', connectedAt: T0 },
        d2: { state: 'connected', holder: 'replica-b', carrier: 'quic', carrierNote: 'udp ok', connectedAt: T0 },
      };
      // In the new bucket, not only in the copies: a replica that starts now reads them.
      const c = await replica({ replicaId: 'replica-c', peerAddress: 'c:8087', ...options }, server);
      replicas.push(c);
      for (const deviceId of Object.keys(expected)) await eventuallyLocated(c.directory, deviceId, 'connected', 10_000);
      expect(Object.fromEntries(await c.directory.locate(['d1', 'd2', 'd3']))).toEqual(expected);
      // Past the liveness TTL twice over, both still read each other's tunnels: the heartbeats go to a new bucket too.
      await new Promise((resolve) => setTimeout(resolve, 2 * options.livenessTtlMs));
      for (const { directory } of [a, b]) expect(Object.fromEntries(await directory.locate(['d1', 'd2']))).toEqual(expected);
      // The copies follow the new bucket: a change made now reaches the other replica.
      await a.directory.lost('d1', 'replica-a', new Date(T0.getTime() + 2000));
      await eventuallyLocated(b.directory, 'd1', 'lost');
    } finally {
      for (const r of replicas) await r.close();
      await b.close();
      await server.stop();
    }
  });
});

async function nextStatus(nc: NatsConnection, type: string): Promise<void> {
  for await (const status of nc.status()) if (status.type === type) return;
}

async function eventuallyLocated(directory: NatsTunnelDirectory, deviceId: string, state: 'connected' | 'lost', timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const location = (await directory.locate([deviceId])).get(deviceId);
    if (location?.state === state) return location;
    if (Date.now() > deadline) throw new Error(`${deviceId} never read ${state}; last: ${JSON.stringify(location)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
