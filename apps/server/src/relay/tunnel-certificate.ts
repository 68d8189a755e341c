import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { ServerConfig } from '../config/server-config';

export interface TunnelCertificate {
  cert: string;
  key: string;
  /** The file clients pass as their CA (`--ca` / SVC_CA_FILE). */
  certFile: string;
  /** SHA-256 of the leaf's DER, lower-case hex without colons (what `--pin sha256:` takes). */
  sha256: string;
  generated: boolean;
}

const STAGING_VALIDITY_DAYS = 825;
const RENEW_BEFORE_MS = 7 * 24 * 60 * 60 * 1000;

/** Lower-case hex SHA-256 of a certificate's DER; the first certificate of a PEM chain is the leaf. */
export function certificateSha256(pem: string): string {
  return new X509Certificate(pem).fingerprint256.replace(/:/g, '').toLowerCase();
}

/**
 * Production: CERTIFICATE_PATH/{cert,key}.pem (config.tls). Staging without those: a self-signed
 * certificate in DATA_DIR/tls/, generated on first start and reused while it is valid for the
 * configured PUBLIC_ADDRESS, so that CA files and pins handed to runtimes keep working.
 */
export async function loadTunnelCertificate(config: ServerConfig): Promise<TunnelCertificate> {
  if (config.tls) {
    const cert = readFileSync(config.tls.certFile, 'utf8');
    return { cert, key: readFileSync(config.tls.keyFile, 'utf8'), certFile: config.tls.certFile, sha256: certificateSha256(cert), generated: false };
  }
  if (!config.staging) throw new Error('CERTIFICATE_PATH: production (STAGING=0) needs TLS certificates');
  const dir = join(config.dataDir, 'tls');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = readFileSync(certFile, 'utf8');
    if (stillFits(cert, config.publicAddress)) {
      return { cert, key: readFileSync(keyFile, 'utf8'), certFile, sha256: certificateSha256(cert), generated: false };
    }
  }
  const { cert, key } = await generateSelfSigned(config.publicAddress);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeAtomically(keyFile, key, 0o600);
  writeAtomically(certFile, cert, 0o644);
  return { cert, key, certFile, sha256: certificateSha256(cert), generated: true };
}

function stillFits(pem: string, publicAddress: string): boolean {
  const cert = new X509Certificate(pem);
  if (new Date(cert.validTo).getTime() - Date.now() < RENEW_BEFORE_MS) return false;
  return isIP(publicAddress) ? cert.checkIP(publicAddress) !== undefined : cert.checkHost(publicAddress) !== undefined;
}

async function generateSelfSigned(publicAddress: string): Promise<{ cert: string; key: string }> {
  // selfsigned 5 is async-only and pulls in WebCrypto helpers; load it only when a certificate is made.
  const selfsigned = await import('selfsigned');
  const names = new Set(['localhost', '127.0.0.1', '::1', publicAddress]);
  const altNames = [...names].map((name) => (isIP(name) ? { type: 7 as const, ip: name } : { type: 2 as const, value: name }));
  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate.getTime() + STAGING_VALIDITY_DAYS * 24 * 60 * 60 * 1000);
  const pems = await selfsigned.generate([{ name: 'commonName', value: publicAddress }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

function writeAtomically(file: string, content: string, mode: number): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, content, { mode });
  chmodSync(temp, mode);
  renameSync(temp, file);
}
