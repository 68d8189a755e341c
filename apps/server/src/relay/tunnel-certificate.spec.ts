import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerConfig } from '../config/server-config';
import { loadTunnelCertificate } from './tunnel-certificate';

describe('tunnel certificate', () => {
  let dataDir: string;
  const staging = (publicAddress = 'localhost') => ({ staging: true, tls: null, dataDir, publicAddress }) as unknown as ServerConfig;

  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'svc-cert-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('generates a staging certificate into DATA_DIR/tls with a private key only the owner reads', async () => {
    const cert = await loadTunnelCertificate(staging('edge.example.test'));
    expect(cert.generated).toBe(true);
    expect(cert.certFile).toBe(join(dataDir, 'tls', 'cert.pem'));
    expect(statSync(join(dataDir, 'tls', 'key.pem')).mode & 0o777).toBe(0o600);
    const x509 = new X509Certificate(cert.cert);
    expect(x509.subjectAltName).toEqual(expect.stringContaining('DNS:localhost'));
    expect(x509.checkHost('edge.example.test')).toBe('edge.example.test');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.sha256).toBe(x509.fingerprint256.replace(/:/g, '').toLowerCase());
  });

  it('reuses the generated certificate on the next start, so pins and CA files stay valid', async () => {
    const first = await loadTunnelCertificate(staging());
    const second = await loadTunnelCertificate(staging());
    expect(second.generated).toBe(false);
    expect(second.sha256).toBe(first.sha256);
  });

  it('makes a new one when PUBLIC_ADDRESS is not covered by the stored one', async () => {
    const first = await loadTunnelCertificate(staging('a.example.test'));
    const second = await loadTunnelCertificate(staging('10.1.2.3'));
    expect(second.generated).toBe(true);
    expect(second.sha256).not.toBe(first.sha256);
    expect(new X509Certificate(second.cert).checkIP('10.1.2.3')).toBe('10.1.2.3');
  });

  it('serves CERTIFICATE_PATH in production', async () => {
    const generated = await loadTunnelCertificate(staging());
    const config = { staging: false, tls: { certFile: generated.certFile, keyFile: join(dataDir, 'tls', 'key.pem') }, dataDir } as unknown as ServerConfig;
    const cert = await loadTunnelCertificate(config);
    expect(cert).toMatchObject({ generated: false, certFile: generated.certFile, sha256: generated.sha256 });
  });
});
