import { createHash, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type { TunnelTrust } from './tls-trust';

const MAX_CHAIN = 8;

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
