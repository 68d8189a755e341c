import { Logger } from '@nestjs/common';
import { ManualClock } from '../common/clock';
import type { StreamRequest, TunnelCloseOptions, TunnelSession, TunnelStream } from './tunnel-carrier';
import { InProcessTunnelDirectory } from './tunnel-directory';
import { TunnelPresence } from '../devices/tunnel-presence';
import { TunnelRegistry } from './tunnel-registry.service';

class FakeSession implements TunnelSession {
  readonly carrier = 'tcp' as const;
  readonly runtime = { version: '1.0.0', boot_id: 'b' };
  readonly remoteAddress = '127.0.0.1';
  closedWith: string | null = null;
  /** Every close asked of it, and whether it was to drain. */
  readonly closes: { reason: string; drain: boolean }[] = [];
  /** A drain lasts until this is called (its streams in flight finished). */
  finishDrain: () => void = () => undefined;
  private listeners: ((reason: string) => void)[] = [];
  constructor(
    readonly deviceId: string,
    private readonly onClose: (session: FakeSession) => void = () => undefined,
  ) {}
  openStream(_request: StreamRequest): Promise<TunnelStream> {
    throw new Error('not used');
  }
  async close(reason: string, options?: TunnelCloseOptions): Promise<void> {
    this.closes.push({ reason, drain: options?.drain === true });
    if (this.closedWith !== null) return;
    this.closedWith = reason;
    this.onClose(this);
    for (const l of this.listeners) l(reason);
    if (options?.drain) await new Promise<void>((resolve) => (this.finishDrain = resolve));
  }
  onClosed(listener: (reason: string) => void): void {
    this.listeners.push(listener);
  }
}

describe('TunnelRegistry', () => {
  beforeAll(() => Logger.overrideLogger(false));
  let clock: ManualClock;
  let directory: InProcessTunnelDirectory;
  let registry: TunnelRegistry;
  let presence: TunnelPresence;
  let touched: string[];

  beforeEach(() => {
    clock = new ManualClock(new Date('2025-01-01T00:00:00Z'));
    directory = new InProcessTunnelDirectory();
    touched = [];
    registry = new TunnelRegistry(directory, clock);
    registry.onPresence({ connected: (id: string) => touched.push(id), disconnected: (id: string) => touched.push(id) });
    presence = new TunnelPresence(directory, clock);
  });

  const presenceOf = async (id: string) => (await presence.presenceOf([id])).get(id);

  it('closes every tunnel at shutdown with one info line, each device told to its listeners', async () => {
    const info = jest.spyOn(Logger.prototype, 'log');
    const debug = jest.spyOn(Logger.prototype, 'debug');
    try {
      const sessions = Array.from({ length: 50 }, (_, i) => new FakeSession(`d${i}`));
      for (const session of sessions) registry.register(session);
      touched = [];
      info.mockClear();
      await registry.closeAll('server shutting down');
      expect(sessions.every((session) => session.closedWith === 'server shutting down')).toBe(true);
      expect(touched.sort()).toEqual(sessions.map((session) => session.deviceId).sort());
      expect(registry.size).toBe(0);
      expect(info.mock.calls.map(([line]) => line)).toEqual([expect.stringMatching(/^closed 50 tunnel\(s\) \(server shutting down\) in \d+ ms$/)]);
      expect(debug.mock.calls.filter(([line]) => String(line).startsWith('tunnel down:'))).toHaveLength(50);
    } finally {
      info.mockRestore();
      debug.mockRestore();
    }
  });

  it('tells its listeners of each registered session once it is live, before a replaced one closes', () => {
    const seen: string[] = [];
    const first = new FakeSession('d1');
    registry.onRegistered((session) => seen.push(`${session.deviceId}:${session === first ? 'first' : 'second'}:${registry.sessionOf('d1') === session}:${first.closedWith ?? 'open'}`));
    registry.onRegistered(() => {
      throw new Error('a failing listener stops nobody');
    });
    registry.register(first);
    registry.register(new FakeSession('d1'));
    expect(seen).toEqual(['d1:first:true:open', 'd1:second:true:open']);
    expect(first.closedWith).toBe('replaced by a new connection');
  });

  it('reports a registered device online with its uptime, and unreachable once its tunnel closes', async () => {
    const session = new FakeSession('d1');
    registry.register(session);
    clock.advance(61_500);
    expect(await presenceOf('d1')).toEqual({ online: true, health: 'healthy', uptimeSeconds: 61, carrier: 'tcp' });
    session.close('gone');
    expect(registry.sessionOf('d1')).toBeUndefined();
    expect(await presenceOf('d1')).toEqual({ online: false, health: 'unreachable', uptimeSeconds: null, carrier: null });
    expect(touched).toEqual(['d1', 'd1']);
  });

  it('tells its presence listeners whether a tunnel replaces one still held (no second "online" for it), and no offline for the replaced one', () => {
    const told: string[] = [];
    registry.onPresence({ connected: (id, replacing) => told.push(`${id} up${replacing ? ' (replacing)' : ''}`), disconnected: (id) => told.push(`${id} down`) });
    const first = new FakeSession('d1');
    registry.register(first);
    registry.register(new FakeSession('d1'));
    expect(first.closedWith).toBe('replaced by a new connection');
    registry.sessionOf('d1')!.close('gone');
    registry.register(new FakeSession('d1'));
    expect(told).toEqual(['d1 up', 'd1 up (replacing)', 'd1 down', 'd1 up']);
  });

  it('has no entry for a device never seen (the port reads that as offline)', async () => {
    expect(await presenceOf('never')).toBeUndefined();
  });

  it('replaces a session atomically: the new one is in place before the old one closes', async () => {
    const first = new FakeSession('d1', () => {
      // While the old session closes, the device must already be served by the new one.
      expect(registry.sessionOf('d1')).toBe(second);
    });
    const second = new FakeSession('d1');
    registry.register(first);
    clock.advance(5_000);
    registry.register(second);
    expect(first.closedWith).toBe('replaced by a new connection');
    expect(second.closedWith).toBeNull();
    expect(registry.require('d1')).toBe(second);
    expect(await presenceOf('d1')).toEqual({ online: true, health: 'healthy', uptimeSeconds: 0, carrier: 'tcp' });
  });

  it('drains a replaced session; revocation or shutdown meanwhile cuts it, one that finished draining is left alone', async () => {
    const [old1, new1, old2, new2, old3, new3] = ['d1', 'd1', 'd2', 'd2', 'd3', 'd3'].map((id) => new FakeSession(id));
    for (const session of [old1, new1, old2, new2, old3, new3]) registry.register(session);
    expect([old1, old2, old3].map((session) => session.closes)).toEqual(Array(3).fill([{ reason: 'replaced by a new connection', drain: true }]));
    old3.finishDrain();
    await new Promise((resolve) => setImmediate(resolve));
    registry.revoke('d1');
    expect(old1.closes.at(-1)).toEqual({ reason: 'device revoked', drain: false });
    expect(old2.closes).toHaveLength(1);
    await registry.closeAll('server shutting down');
    expect(old2.closes.at(-1)).toEqual({ reason: 'server shutting down', drain: false });
    expect(old3.closes).toHaveLength(1);
  });

  it('revokes: closes the live session and forgets the device', async () => {
    const session = new FakeSession('d1');
    registry.register(session);
    registry.revoke('d1');
    expect(session.closedWith).toBe('device revoked');
    expect(() => registry.require('d1')).toThrow('Device is offline');
    expect(await presenceOf('d1')).toBeUndefined();
  });

  it('says DEVICE_OFFLINE for a device without a tunnel', () => {
    expect(() => registry.require('nope')).toThrow(expect.objectContaining({ code: 'DEVICE_OFFLINE' }));
  });
});
