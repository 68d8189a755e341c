import type { Socket } from 'node:net';

/** Caps on the connections a port holds at once (UNIFIED_PORT per carrier: TUNNEL_MAX_CONNECTIONS*; REST_PORT: REST_MAX_CONNECTIONS*). */
export interface ConnectionCaps {
  perAddress: number;
  total: number;
}

/** The variables that set the caps, named when a refusal is reported. */
const TUNNEL_CAP_VARIABLES = { perAddress: 'TUNNEL_MAX_CONNECTIONS_PER_ADDRESS', total: 'TUNNEL_MAX_CONNECTIONS' };

/**
 * Counts open connections per source address and overall, and refuses one over either cap before
 * TLS starts (or, on QUIC, right after the handshake), so one address cannot hold the port's
 * connections (or the server's memory and file descriptors). UNIFIED_PORT's carriers and REST_PORT
 * (rest-connections.ts) each have their own.
 * Refusals are counted and reported at most once per interval, so a flood cannot flood the log.
 */
export class ConnectionLimits {
  private readonly perAddress = new Map<string, number>();
  private total = 0;
  private refusedSinceReport = 0;
  private lastReportAt = 0;

  constructor(
    private readonly caps: ConnectionCaps,
    private readonly report: (message: string) => void,
    private readonly variables: Record<keyof ConnectionCaps, string> = TUNNEL_CAP_VARIABLES,
    private readonly reportIntervalMs = 10_000,
  ) {}

  /** Counts a connection from `address` and returns its release, or null (over a cap: refuse it). */
  acquire(address: string): (() => void) | null {
    const held = this.perAddress.get(address) ?? 0;
    if (held >= this.caps.perAddress || this.total >= this.caps.total) {
      this.refused(held >= this.caps.perAddress ? `${address} holds ${held} (${this.variables.perAddress})` : `${this.total} open (${this.variables.total})`);
      return null;
    }
    this.perAddress.set(address, held + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(address);
    };
  }

  /** A TCP connection: admitted (released when it closes) or destroyed; returns whether it was admitted. */
  admit(socket: Socket): boolean {
    const release = this.acquire(sourceAddress(socket));
    if (!release) {
      socket.destroy();
      return false;
    }
    socket.once('close', release);
    return true;
  }

  /** Open connections from `address` (tests and diagnostics). */
  heldBy(address: string): number {
    return this.perAddress.get(address) ?? 0;
  }

  private release(address: string): void {
    this.total--;
    const held = (this.perAddress.get(address) ?? 1) - 1;
    if (held <= 0) this.perAddress.delete(address);
    else this.perAddress.set(address, held);
  }

  private refused(why: string): void {
    this.refusedSinceReport++;
    const now = Date.now();
    if (now - this.lastReportAt < this.reportIntervalMs) return;
    this.report(`refused ${this.refusedSinceReport} connection(s) over the cap: ${why}`);
    this.refusedSinceReport = 0;
    this.lastReportAt = now;
  }
}

/** The peer's address, with an IPv4-mapped IPv6 address written as IPv4. */
export function sourceAddress(socket: Pick<Socket, 'remoteAddress'>): string {
  return (socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
}
