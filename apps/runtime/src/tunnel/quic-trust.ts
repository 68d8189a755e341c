import { createHash, verify, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { QUIC_IDENTITY_CONTEXT } from '@svc/common';
import type { TunnelTrust } from './tls-trust';

const MAX_CHAIN = 8;

/** The QUIC server key GET /auth/config announces (apps/server quic-identity.ts). */
export interface AnnouncedQuicIdentity {
  peer_id: string;
  certificate: string;
  signature: string;
}

/**
 * QUIC's handshake (libp2p-tls) proves a key, not a name: the runtime trusts the announced peer
 * id only when the tunnel certificate that signed it passes the TCP carrier's rules (pin, CA
 * file, or else the platform's roots) for this host. Returns why it is refused.
 */
export function untrustedQuicIdentityReason(identity: AnnouncedQuicIdentity, host: string, trust: TunnelTrust): string | undefined {
  let certs: X509Certificate[];
  try {
    certs = pemCertificates(Buffer.from(identity.certificate));
  } catch {
    return 'the announced QUIC identity carries no readable certificate';
  }
  const anchors = trust.pin === undefined && trust.ca === undefined ? { ...trust, ca: Buffer.from(rootCertificates.join('\n')) } : trust;
  const refusal = untrustedQuicReason(certs.map((cert) => cert.raw), host, anchors);
  if (refusal !== undefined) return refusal;
  const signed = Buffer.from(QUIC_IDENTITY_CONTEXT + identity.peer_id);
  const key = certs[0].publicKey;
  const digest = key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448' ? null : 'sha256';
  let valid = false;
  try {
    valid = verify(digest, signed, key, Buffer.from(identity.signature, 'base64'));
  } catch {
    valid = false;
  }
  return valid ? undefined : 'the announced QUIC key is not signed by the tunnel certificate';
}

/**
 * The QUIC carrier's certificate check, the same rules as the TLS one (tls-trust.ts): a pin alone
 * decides when set; otherwise the chain must lead to the CA file's certificate and the leaf must
 * be valid now and name the host (quiche checks host names only, never IP addresses, so the
 * check is done here). `certs` is the peer's chain as DER, leaf first. Returns why it is refused.
 */
export function untrustedQuicReason(certs: Uint8Array[], host: string, trust: TunnelTrust): string | undefined {
  if (certs.length === 0) return 'server presented no certificate';
  if (trust.pin !== undefined) {
    const presented = createHash('sha256').update(certs[0]).digest('hex');
    return presented === trust.pin ? undefined : `server certificate sha256:${presented} does not match the pinned sha256:${trust.pin}`;
  }
  if (!trust.ca) return 'no CA to check the server certificate against';
  const [leaf, ...intermediates] = certs.map((der) => new X509Certificate(Buffer.from(der)));
  const now = Date.now();
  if (now < Date.parse(leaf.validFrom) || now > Date.parse(leaf.validTo)) return 'server certificate not trusted: outside its validity period';
  const named = isIP(host) ? leaf.checkIP(host) : leaf.checkHost(host);
  if (named === undefined) return `server certificate not trusted: it does not name ${host}`;
  const anchors = pemCertificates(trust.ca);
  let current = leaf;
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    // The CA file may hold the certificate itself (a staging server's self-signed one).
    if (anchors.some((anchor) => anchor.raw.equals(current.raw) || issued(current, anchor))) return undefined;
    const next = intermediates.find((candidate) => issued(current, candidate));
    if (!next) break;
    current = next;
  }
  return 'server certificate not trusted: it does not chain to the CA file';
}

function issued(subject: X509Certificate, issuer: X509Certificate): boolean {
  return subject.checkIssued(issuer) && subject.verify(issuer.publicKey);
}

function pemCertificates(pem: Buffer): X509Certificate[] {
  const blocks = pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}
