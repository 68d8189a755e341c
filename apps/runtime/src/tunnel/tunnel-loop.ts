import type { RuntimeLogger } from '../logging/runtime-logger';
import { unlessAborted } from '../util/abortable';
import type { Backoff } from './backoff';
import { OpenTunnel, TunnelRefusedError } from './tunnel-connection';
import { TRUST_HINT_INTERVAL_MS, UntrustedServerError } from './untrusted-server';

/** A tunnel that stayed up this long was healthy: the next outage starts backing off from the base. */
export const STABLE_TUNNEL_MS = 30_000;

export interface TunnelLoopDeps {
  /** Discovers where to go and opens one tunnel (throws when it cannot). */
  connect(): Promise<OpenTunnel>;
  backoff: Backoff;
  log: RuntimeLogger;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  now(): number;
  stableAfterMs?: number;
}

export type TunnelLoopEnd = 'stopped' | 'refused';

/**
 * Stays connected until told to stop: every lost or failed connection is retried after a fully
 * jittered backoff; a refused key ends the loop for good (retrying cannot fix it). An untrusted
 * server certificate is retried too (the server may be fixed), with a hint of what to pass
 * logged at most every TRUST_HINT_INTERVAL_MS.
 */
export async function runTunnelLoop(deps: TunnelLoopDeps, signal: AbortSignal): Promise<TunnelLoopEnd> {
  const stableAfterMs = deps.stableAfterMs ?? STABLE_TUNNEL_MS;
  let lastTrustHintAt = -Infinity;
  while (!signal.aborted) {
    try {
      const tunnel = await deps.connect();
      if (signal.aborted) {
        await tunnel.close();
        break;
      }
      const upAt = deps.now();
      deps.log.info('tunnel up', { device_id: tunnel.deviceId, heartbeat_secs: tunnel.heartbeatSecs, carrier: tunnel.carrier });
      const reason = await unlessAborted(tunnel.closed, signal);
      if (signal.aborted) {
        await tunnel.close();
        break;
      }
      if (deps.now() - upAt >= stableAfterMs) deps.backoff.reset();
      deps.log.warn('tunnel lost', { reason });
    } catch (error) {
      if (error instanceof TunnelRefusedError) return 'refused';
      deps.log.warn('tunnel connection failed', { error });
      if (error instanceof UntrustedServerError && deps.now() - lastTrustHintAt >= TRUST_HINT_INTERVAL_MS) {
        lastTrustHintAt = deps.now();
        deps.log.error('the server certificate is not trusted', { reason: error.message, hint: error.hint });
      }
    }
    const delay = deps.backoff.next();
    deps.log.info('reconnecting', { in_ms: delay });
    await deps.sleep(delay, signal);
  }
  return 'stopped';
}
