import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';

/**
 * How a client trusts the server on UNIFIED_PORT (docs/protocol.md, "Carrier and trust"):
 * - `pin` (lower-case hex SHA-256 of the leaf's DER): the chain is not consulted, but nothing is
 *   sent until the presented leaf matches the pin;
 * - otherwise normal verification (chain and host name) against `ca`, or the platform's store.
 * Verification is never switched off without the pin check taking its place.
 */
export interface ServerTrust {
  ca?: string | Buffer;
  pin?: string;
}

export function serverTlsOptions(host: string, port: number, trust: ServerTrust, alpn: string): ConnectionOptions {
  return {
    host,
    port,
    // SNI carries names only, never addresses.
    servername: isIP(host) === 0 ? host : undefined,
    ALPNProtocols: [alpn],
    minVersion: 'TLSv1.3',
    ca: trust.ca,
    rejectUnauthorized: trust.pin === undefined,
  };
}

/** Checks a connected socket before anything is written to it; returns why it is not trusted. */
export function untrustedServerReason(socket: TLSSocket, trust: ServerTrust, alpn: string): string | undefined {
  if (trust.pin !== undefined) {
    const raw = socket.getPeerCertificate().raw;
    const presented = raw ? createHash('sha256').update(raw).digest('hex') : 'none';
    if (presented !== trust.pin) return `server certificate sha256:${presented} does not match the pinned sha256:${trust.pin}`;
  } else if (!socket.authorized) {
    return `server certificate not trusted: ${String(socket.authorizationError)}`;
  }
  if (socket.alpnProtocol !== alpn) return `server does not speak ${alpn} (ALPN ${String(socket.alpnProtocol)})`;
  return undefined;
}
