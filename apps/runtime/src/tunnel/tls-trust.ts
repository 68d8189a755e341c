import { readFileSync } from 'node:fs';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { serverTlsOptions, TUNNEL_ALPN, untrustedServerReason } from '@svc/common';

/**
 * How the runtime trusts the server's tunnel certificate, chosen once at start-up:
 * - a pinned leaf fingerprint (`--pin` / SVC_SERVER_FINGERPRINT): the chain is not consulted, but
 *   nothing is sent until the presented leaf matches the pin;
 * - otherwise normal verification (chain and host name) against `--ca` / SVC_CA_FILE, or the
 *   platform's trust store when no CA file is given.
 * Verification is never switched off without the pin check taking its place.
 */
export interface TunnelTrust {
  ca?: Buffer;
  pin?: string;
}

export function loadTunnelTrust(caFile: string | undefined, pin: string | undefined): TunnelTrust {
  if (pin) return { pin };
  if (!caFile) return {};
  try {
    return { ca: readFileSync(caFile) };
  } catch (error) {
    throw new Error(`cannot read the CA file ${caFile}: ${(error as Error).message}`);
  }
}

/** TLS options for the tunnel: the shared client rule (libs/common tls-trust) with ALPN svc-tunnel/1. */
export function tlsConnectOptions(host: string, port: number, trust: TunnelTrust): ConnectionOptions {
  return serverTlsOptions(host, port, trust, TUNNEL_ALPN);
}

/** Checks a connected socket before anything is written to it; returns why it is not trusted. */
export function untrustedReason(socket: TLSSocket, trust: TunnelTrust): string | undefined {
  return untrustedServerReason(socket, trust, TUNNEL_ALPN);
}
