import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { ConnectionOptions, TLSSocket } from 'node:tls';
import { TUNNEL_ALPN } from '@svc/common';

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

export function tlsConnectOptions(host: string, port: number, trust: TunnelTrust): ConnectionOptions {
  return {
    host,
    port,
    // SNI carries names only, never addresses.
    servername: isIP(host) === 0 ? host : undefined,
    ALPNProtocols: [TUNNEL_ALPN],
    minVersion: 'TLSv1.3',
    ca: trust.ca,
    rejectUnauthorized: trust.pin === undefined,
  };
}

/** Checks a connected socket before anything is written to it; returns why it is not trusted. */
export function untrustedReason(socket: TLSSocket, trust: TunnelTrust): string | undefined {
  if (trust.pin !== undefined) {
    const raw = socket.getPeerCertificate().raw;
    const presented = raw ? createHash('sha256').update(raw).digest('hex') : 'none';
    if (presented !== trust.pin) return `server certificate sha256:${presented} does not match the pinned sha256:${trust.pin}`;
  } else if (!socket.authorized) {
    return `server certificate not trusted: ${String(socket.authorizationError)}`;
  }
  if (socket.alpnProtocol !== TUNNEL_ALPN) return `server does not speak ${TUNNEL_ALPN} (ALPN ${String(socket.alpnProtocol)})`;
  return undefined;
}
