import { EventEmitter } from 'node:events';
import type { UserPrincipal } from '../auth/principal';
import { EventSink, EventStreamConnection, EventStreamLimits } from './event-stream-connection';
import type { FleetEvent } from './fleet-event';

/** A socket that takes `capacity` bytes and then never drains (a client that stopped reading). */
class StuckSink extends EventEmitter implements EventSink {
  written = '';
  ended = false;
  destroyed = false;
  constructor(private readonly capacity: number) {
    super();
  }
  get writableLength(): number {
    return Math.max(0, this.written.length - this.capacity);
  }
  write(chunk: string): boolean {
    this.written += chunk;
    return this.written.length <= this.capacity;
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

const principal: UserPrincipal = { kind: 'user', email: 'a@x.test', scopes: ['user:a@x.test'], memberships: [], admin: false };
const limits: EventStreamLimits = { maxQueued: 50, stallMs: 60_000, heartbeatMs: 60_000, reauthenticateMs: 60_000 };
const event = (seq: number, visible = true): FleetEvent => ({ id: `e-${seq}`, seq, type: 'device.online', at: 'now', data: { type: 'device.online', visible }, audience: { deviceId: 'd' }, receivedAt: 0 });
const settle = () => new Promise((resolve) => setImmediate(resolve));

function connect(sink: EventSink, extra: Partial<EventStreamLimits> = {}) {
  const ended: string[] = [];
  const caller = { principal, visible: async (_p: UserPrincipal, e: FleetEvent) => e.data.visible === true, reauthenticate: async () => principal };
  const connection = new EventStreamConnection(sink, caller, { ...limits, ...extra }, (_c, reason) => ended.push(reason));
  return { connection, ended };
}

describe('EventStreamConnection', () => {
  it('writes the visible events in order and skips the others', async () => {
    const sink = new StuckSink(1e9);
    const { connection } = connect(sink);
    connection.start('retry: 3000\n\n', [event(1), event(2, false)]);
    connection.offer(event(3));
    await settle();
    expect(sink.written).toBe('retry: 3000\n\nid: e-1\nevent: device.online\ndata: {"type":"device.online","visible":true}\n\nid: e-3\nevent: device.online\ndata: {"type":"device.online","visible":true}\n\n');
  });

  it('holds at most maxQueued events and one socket buffer for a client that stopped reading, then drops it', async () => {
    const sink = new StuckSink(1_000);
    const { connection, ended } = connect(sink);
    connection.start('', []);
    for (let seq = 1; seq <= 10_000 && ended.length === 0; seq++) {
      connection.offer(event(seq));
      await settle();
      expect(connection.queued).toBeLessThanOrEqual(limits.maxQueued);
      expect(connection.bufferedBytes).toBeLessThan(200);
    }
    expect(ended).toEqual([expect.stringContaining('behind')]);
    expect(sink.destroyed).toBe(true);
    expect(connection.queued).toBe(0);
  });

  it('writes a keep-alive comment every heartbeatMs', () => {
    jest.useFakeTimers();
    try {
      const sink = new StuckSink(1e9);
      const { connection } = connect(sink, { heartbeatMs: 15_000 });
      connection.start('retry: 3000\n\n', []);
      jest.advanceTimersByTime(30_000);
      expect(sink.written).toBe('retry: 3000\n\n: keep-alive\n\n: keep-alive\n\n');
      connection.close('done');
    } finally {
      jest.useRealTimers();
    }
  });

  it('drops a stream whose socket stays full for stallMs', async () => {
    jest.useFakeTimers();
    try {
      const sink = new StuckSink(10);
      const { connection, ended } = connect(sink, { stallMs: 5_000 });
      connection.start('retry: 3000\n\n', []);
      jest.advanceTimersByTime(4_999);
      expect(ended).toEqual([]);
      jest.advanceTimersByTime(2);
      expect(ended).toEqual([expect.stringContaining('not read')]);
      expect(sink.destroyed).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('ends the stream when the token no longer holds', async () => {
    const sink = new StuckSink(1e9);
    const ended: string[] = [];
    const caller = { principal, visible: async () => true, reauthenticate: async () => Promise.reject(new Error('Access token has expired')) };
    const connection = new EventStreamConnection(sink, caller, limits, (_c, reason) => ended.push(reason));
    connection.offer({ ...event(1), type: 'access.changed', audience: { orgId: 'o', member: principal.email } });
    await settle();
    expect(ended).toEqual([expect.stringContaining('Access token has expired')]);
    expect(sink.written).toBe('');
  });
});
