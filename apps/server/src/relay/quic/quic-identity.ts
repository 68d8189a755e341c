import { createPrivateKey, sign } from 'node:crypto';
import { deriveQuinnIdentity, QUIC_IDENTITY_CONTEXT, QuinnIdentity } from '@svc/common';
import type { TunnelCertificate } from '../tunnel-certificate';

/** What GET /auth/config announces so that a runtime can check the QUIC server's key. */
export interface AnnouncedQuicIdentity {
  /** The libp2p peer id of the key the QUIC handshake proves. */
  peer_id: string;
  /** The tunnel's TLS certificate chain (PEM), checked by the runtime exactly as on TCP. */
  certificate: string;
  /** Base64 signature of `QUIC_IDENTITY_CONTEXT + peer_id` by that certificate's key. */
  signature: string;
}

/**
 * The QUIC carrier's identity (libp2p-tls: a self-signed Ed25519 key, no CA) is derived from the
 * tunnel's TLS key, so it changes exactly when that key does, and is vouched for by it: the
 * certificate signs the peer id, and a runtime trusts the peer id only through a certificate it
 * trusts (CA file, platform store or pin, the TCP carrier's rules).
 */
export function quicIdentity(certificate: Pick<TunnelCertificate, 'cert' | 'key'>): { identity: QuinnIdentity; announced: AnnouncedQuicIdentity } {
  const identity = deriveQuinnIdentity(certificate.key, 'svc tunnel QUIC identity v1');
  const key = createPrivateKey(certificate.key);
  // Ed25519/Ed448 keys sign the message itself; RSA and EC keys sign its SHA-256.
  const digest = key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448' ? null : 'sha256';
  const signature = sign(digest, Buffer.from(QUIC_IDENTITY_CONTEXT + identity.peerId), key).toString('base64');
  return { identity, announced: { peer_id: identity.peerId, certificate: certificate.cert, signature } };
}
