import type { TunnelTrust } from './tls-trust';

/** The tunnel's certificate check failed: retrying cannot help until the operator passes a CA file or a pin. */
export class UntrustedServerError extends Error {
  constructor(
    reason: string,
    /** What to pass instead: the flags, and the fingerprint the server announces (to be checked, not trusted blindly). */
    readonly hint: string,
  ) {
    super(reason);
    this.name = 'UntrustedServerError';
  }
}

/** `announcedSha256`: `certificate_sha256` of GET /auth/config, when the runtime asked for it. */
export function untrustedServer(reason: string, trust: TunnelTrust, announcedSha256: string | undefined): UntrustedServerError {
  const pin = `--pin sha256:${announcedSha256 ?? '<hex>'} (SVC_SERVER_FINGERPRINT)`;
  const check = announcedSha256 ? '; compare that fingerprint with the one in the server\'s start log before pinning it' : '';
  const advice =
    trust.pin !== undefined
      ? `the pinned fingerprint is not the server's: pass ${pin}${check}`
      : trust.ca !== undefined
        ? `the CA file does not match the server's certificate: pass the certificate file the server names at start (--ca <file>), or ${pin}${check}`
        : `pass --ca <file> (SVC_CA_FILE) with the certificate file the server names at start (staging: DATA_DIR/tls/cert.pem), or ${pin}${check}`;
  return new UntrustedServerError(reason, advice);
}

/** OpenSSL's verification failures as Node names them: the certificate, not the network, is the problem. */
const CERTIFICATE_ERRORS: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export function isCertificateError(error: unknown): boolean {
  return CERTIFICATE_ERRORS.has(String((error as NodeJS.ErrnoException | undefined)?.code));
}

/** At most one hint per interval: the tunnel loop retries every few seconds to a minute. */
export const TRUST_HINT_INTERVAL_MS = 10 * 60_000;
