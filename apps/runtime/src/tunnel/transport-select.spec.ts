import { eventually } from '../../../../test/fixtures/eventually';
import { RuntimeLogger } from '../logging/runtime-logger';
import { connectWithTransport, TransportSelectDeps } from './transport-select';
import { OpenTunnel, TunnelCarrierName, TunnelRefusedError, TunnelTarget } from './tunnel-connection';

interface FakeTunnel extends OpenTunnel {
  lose(reason: string): void;
  busyNow: boolean;
}

function fakeTunnel(carrier: TunnelCarrierName, rttMs?: number): FakeTunnel {
  let lose!: (reason: string) => void;
  const closed = new Promise<string>((resolve) => (lose = resolve));
  const tunnel: FakeTunnel = {
    carrier,
    deviceId: 'pi-1',
    heartbeatSecs: 10,
    busyNow: false,
    busy: () => tunnel.busyNow,
    closed,
    close: async () => lose('shutdown'),
    lose: (reason) => lose(reason),
    ...(carrier === 'quic' && rttMs !== undefined && { roundTripMs: () => rttMs }),
  };
  return tunnel;
}

/** `quicWorks` decides, at each attempt, whether QUIC connects; a QUIC tunnel measures `rttMs` (40 ms: far). */
function deps(mode: TransportSelectDeps['mode'], target: TunnelTarget, quicWorks: () => boolean, rttMs = 40) {
  const attempts: TunnelCarrierName[] = [];
  const notes: (string | undefined)[] = [];
  const opened: FakeTunnel[] = [];
  const d: TransportSelectDeps = {
    mode,
    probeIntervalMs: 5,
    nearRttMs: 2,
    target: async () => target,
    open: async (_target, carrier, _timeoutMs, note) => {
      attempts.push(carrier);
      notes.push(note);
      if (carrier === 'quic' && !quicWorks()) throw new Error('QUIC handshake timed out');
      const tunnel = fakeTunnel(carrier, rttMs);
      opened.push(tunnel);
      return tunnel;
    },
    log: new RuntimeLogger('error'),
  };
  return { d, attempts, notes, opened };
}

/** The probes run every 5 ms: look as often. */
const OFTEN = { intervalMs: 2 };

describe('connectWithTransport', () => {
  const both: TunnelTarget = { host: 'h', port: 1, transports: ['quic', 'tcp'] };

  it.each(['quic', 'tcp'] as const)('--transport %s uses that carrier only', async (mode) => {
    const { d, attempts } = deps(mode, both, () => false);
    if (mode === 'quic') await expect(connectWithTransport(d)).rejects.toThrow('QUIC handshake timed out');
    else expect((await connectWithTransport(d)).carrier).toBe('tcp');
    expect(attempts).toEqual([mode]);
  });

  it('auto prefers QUIC when the server offers it', async () => {
    const { d, attempts } = deps('auto', both, () => true);
    expect((await connectWithTransport(d)).carrier).toBe('quic');
    expect(attempts).toEqual(['quic']);
  });

  it('auto takes TCP where QUIC finds the server near, says why, and does not probe', async () => {
    const { d, attempts, notes } = deps('auto', both, () => true, 0);
    const tunnel = await connectWithTransport(d);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(tunnel.carrier).toBe('tcp');
    expect(attempts).toEqual(['quic', 'tcp']);
    expect(notes).toEqual([undefined, 'auto: the server is near (QUIC round trip 0 ms, under 2 ms), where TCP moves data faster; using TCP']);
    await tunnel.close();
  });

  it('auto stays on QUIC at any distance when the near threshold is off (0)', async () => {
    const { d, attempts } = deps('auto', both, () => true, 0);
    d.nearRttMs = 0;
    expect((await connectWithTransport(d)).carrier).toBe('quic');
    expect(attempts).toEqual(['quic']);
  });

  it('auto stays on QUIC when TCP does not connect to a near server', async () => {
    const { d } = deps('auto', both, () => true, 0);
    const open = d.open;
    d.open = async (target, carrier, timeoutMs, note) => {
      if (carrier === 'tcp') throw new Error('TCP blocked');
      return open(target, carrier, timeoutMs, note);
    };
    expect((await connectWithTransport(d)).carrier).toBe('quic');
  });

  it('auto goes straight to TCP when the server offers no QUIC', async () => {
    const { d, attempts } = deps('auto', { host: 'h', port: 1, transports: ['tcp'] }, () => true);
    const tunnel = await connectWithTransport(d);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(tunnel.carrier).toBe('tcp');
    expect(attempts).toEqual(['tcp']);
    await tunnel.close();
  });

  it('auto takes TCP at once, never probes, and says why where there is no QUIC binding', async () => {
    const { d, attempts, notes } = deps('auto', both, () => true);
    d.quicUnavailable = 'no QUIC binding for linux-arm';
    const tunnel = await connectWithTransport(d);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(tunnel.carrier).toBe('tcp');
    expect(attempts).toEqual(['tcp']);
    expect(notes).toEqual(['auto: QUIC unavailable on this device (no QUIC binding for linux-arm); using TCP']);
  });

  it('auto on TCP after a failed QUIC handshake says so in its hello', async () => {
    const { d, notes } = deps('auto', both, () => false);
    const tunnel = await connectWithTransport(d);
    expect(notes[1]).toMatch(/^auto: QUIC did not connect \(QUIC handshake timed out\); using TCP/);
    await tunnel.close();
  });

  it('auto does not fall back when the key is refused', async () => {
    const { d } = deps('auto', both, () => true);
    d.open = async () => {
      throw new TunnelRefusedError();
    };
    await expect(connectWithTransport(d)).rejects.toBeInstanceOf(TunnelRefusedError);
  });

  it('auto falls back to TCP, then moves to QUIC once a probe connects while idle', async () => {
    let udp = false;
    const { d, opened } = deps('auto', both, () => udp);
    const tunnel = await connectWithTransport(d);
    expect(tunnel.carrier).toBe('tcp');
    opened[0].busyNow = true;
    udp = true;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(tunnel.carrier).toBe('tcp');
    opened[0].busyNow = false;
    await eventually('the tunnel on QUIC', () => tunnel.carrier === 'quic', OFTEN);
    // The TCP tunnel's end (the server closing it) no longer ends this tunnel; the QUIC one's does.
    opened[0].lose('replaced');
    let ended: string | undefined;
    void tunnel.closed.then((reason) => (ended = reason));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ended).toBeUndefined();
    opened[1].lose('QUIC path lost');
    expect(await tunnel.closed).toBe('QUIC path lost');
  });

  it('auto on TCP after a fallback: a probe that finds the server near goes back to TCP and stops probing', async () => {
    let udp = false;
    const { d, attempts, notes, opened } = deps('auto', both, () => udp, 1);
    const tunnel = await connectWithTransport(d);
    expect(tunnel.carrier).toBe('tcp');
    udp = true;
    await eventually('the fourth attempt', () => attempts.length === 4, OFTEN);
    expect(attempts).toEqual(['quic', 'tcp', 'quic', 'tcp']);
    expect(notes[3]).toMatch(/^auto: the server is near \(QUIC round trip 1 ms/);
    // The server closing the replaced TCP and QUIC tunnels while the probe decided does not end this one.
    opened[0].lose('replaced');
    opened[1].lose('replaced');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(attempts).toHaveLength(4);
    expect(tunnel.carrier).toBe('tcp');
    let ended: string | undefined;
    void tunnel.closed.then((reason) => (ended = reason));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ended).toBeUndefined();
    opened[2].lose('TCP path lost');
    expect(await tunnel.closed).toBe('TCP path lost');
  });
});
