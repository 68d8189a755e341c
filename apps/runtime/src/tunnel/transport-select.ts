import type { TransportMode } from '../config/runtime-variables';
import type { RuntimeLogger } from '../logging/runtime-logger';
import { OpenTunnel, TunnelCarrierName, TunnelRefusedError, TunnelTarget } from './tunnel-connection';


/** In auto mode a QUIC handshake that has not completed by then counts as "UDP is blocked". */
export const AUTO_QUIC_TIMEOUT_MS = 5000;

export interface TransportSelectDeps {
  mode: TransportMode;
  /** How often a tunnel that fell back to TCP tries QUIC again (auto mode). */
  probeIntervalMs: number;
  /**
   * Auto mode: a QUIC tunnel whose round trip is below this (ms) is to a near server (same host,
   * LAN), where TCP moves bulk data faster: auto then takes TCP. 0: QUIC whatever the distance.
   */
  nearRttMs: number;
  /** Where to connect (asks the server, unless the address was configured). */
  target(): Promise<TunnelTarget>;
  /**
   * Why this runtime cannot dial QUIC at all (no QUIC binding for its platform, or
   * SVC_QUIC_BINDING=none), or undefined when it can: `auto` then takes TCP without trying.
   */
  quicUnavailable?: string;
  /**
   * Opens one tunnel on one carrier; `timeoutMs` bounds the transport handshake when given;
   * `note` (auto mode on TCP) says why it is not QUIC: the hello carries it to device_status.
   */
  open(target: TunnelTarget, carrier: TunnelCarrierName, timeoutMs?: number, note?: string): Promise<OpenTunnel>;
  log: RuntimeLogger;
}

/**
 * `--transport quic|tcp` use that carrier only. `auto` tries QUIC when the server offers it and
 * falls back to TLS over TCP when QUIC cannot connect (UDP blocked); while on TCP it probes QUIC
 * every `probeIntervalMs` and, when the probe tunnel comes up while no operation is running,
 * moves onto it (the server replaces the TCP tunnel with it atomically). A QUIC tunnel to a near
 * server (round trip below `nearRttMs`) is replaced by a TCP one and probing stops: there the
 * carriers' CPU cost decides and TCP's is lower (docs/architecture.md, "Which carrier `auto`
 * takes"). On a platform without a QUIC binding `auto` takes TCP at once and never probes. On
 * TCP, `auto` says why (`carrier_note`).
 */
export async function connectWithTransport(deps: TransportSelectDeps): Promise<OpenTunnel> {
  const target = await deps.target();
  if (deps.mode !== 'auto') return deps.open(target, deps.mode);
  if (deps.quicUnavailable !== undefined) return deps.open(target, 'tcp', undefined, `auto: QUIC unavailable on this device (${deps.quicUnavailable}); using TCP`);
  const quicOffered = target.transports === undefined || target.transports.includes('quic');
  let note: string | undefined;
  if (quicOffered) {
    let quic: OpenTunnel | undefined;
    try {
      quic = await deps.open(target, 'quic', AUTO_QUIC_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof TunnelRefusedError) throw error;
      deps.log.warn('QUIC unavailable; using TLS over TCP', { error });
      note = `auto: QUIC did not connect (${(error as Error).message}); using TCP, trying QUIC again every ${Math.round(deps.probeIntervalMs / 1000)} s`;
    }
    if (quic) return await unlessNear(quic, target, deps);
  }
  const tcp = await deps.open(target, 'tcp', undefined, note);
  return upgradingTunnel(tcp, deps);
}

/** A TCP tunnel that moves itself onto QUIC once a probe succeeds; settles when the live one ends. */
function upgradingTunnel(tcp: OpenTunnel, deps: TransportSelectDeps): OpenTunnel {
  let current = tcp;
  let probing = false;
  /** While a probe decides between QUIC and a near server's TCP, the tunnels it replaces end unheeded. */
  let moving = false;
  let stopped = false;
  let settle!: (reason: string) => void;
  const closed = new Promise<string>((resolve) => (settle = resolve));
  const watch = (tunnel: OpenTunnel) =>
    void tunnel.closed.then((reason) => {
      if (current !== tunnel || moving) return;
      clearInterval(timer);
      settle(reason);
    });
  const probe = async () => {
    if (probing || stopped || current.carrier === 'quic' || current.busy()) return;
    probing = true;
    try {
      const target = await deps.target();
      if (target.transports !== undefined && !target.transports.includes('quic')) return;
      const quic = await deps.open(target, 'quic', AUTO_QUIC_TIMEOUT_MS);
      if (stopped) {
        await quic.close();
        return;
      }
      // The QUIC tunnel replaced the TCP one at the server; a near server gets a TCP one again, and no more probes.
      moving = true;
      const chosen = await unlessNear(quic, target, deps).finally(() => (moving = false));
      current = chosen;
      clearInterval(timer);
      watch(chosen);
      if (stopped) await chosen.close();
      else if (chosen.carrier === 'quic') deps.log.info('tunnel moved to QUIC', { device_id: quic.deviceId, from: 'tcp', to: 'quic', carrier: 'quic' });
    } catch (error) {
      deps.log.debug('QUIC probe failed', { error });
    } finally {
      probing = false;
    }
  };
  const timer = setInterval(() => void probe(), deps.probeIntervalMs);
  timer.unref();
  watch(tcp);
  return {
    get carrier() {
      return current.carrier;
    },
    get deviceId() {
      return current.deviceId;
    },
    get heartbeatSecs() {
      return current.heartbeatSecs;
    },
    busy: () => current.busy(),
    closed,
    async close() {
      stopped = true;
      clearInterval(timer);
      await current.close();
    },
  };
}

/**
 * `quic`, unless its round trip says the server is near (below `deps.nearRttMs`): then a TCP
 * tunnel that says why, which the server puts in the QUIC one's place (closing it, as for any
 * reconnect). Should TCP not connect, the QUIC tunnel stays.
 */
async function unlessNear(quic: OpenTunnel, target: TunnelTarget, deps: TransportSelectDeps): Promise<OpenTunnel> {
  const rttMs = quic.roundTripMs?.();
  if (rttMs === undefined || deps.nearRttMs <= 0 || rttMs >= deps.nearRttMs) return quic;
  const note = `auto: the server is near (QUIC round trip ${rttMs} ms, under ${deps.nearRttMs} ms), where TCP moves data faster; using TCP`;
  try {
    const tcp = await deps.open(target, 'tcp', undefined, note);
    // The carrier switch, told once; the server's close of the QUIC tunnel it replaced is only a debug line.
    deps.log.info('server is near: tunnel on TCP', { device_id: tcp.deviceId, from: 'quic', to: 'tcp', round_trip_ms: rttMs });
    return tcp;
  } catch (error) {
    if (error instanceof TunnelRefusedError) throw error;
    deps.log.warn('TCP did not connect; staying on QUIC', { error });
    return quic;
  }
}
