import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { untrustedQuicReason } from './quic-trust';

describe('untrustedQuicReason (QUIC peer certificate check)', () => {
  let dir: string;
  const der = (file: string) => new Uint8Array(new X509Certificate(readFileSync(join(dir, file))).raw);
  const pem = (file: string) => readFileSync(join(dir, file));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-quic-trust-'));
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'];
    openssl('req', '-x509', ...ec, '-keyout', 'self.key', '-out', 'self.pem', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-addext', 'keyUsage=critical,digitalSignature', '-addext', 'basicConstraints=CA:FALSE');
    openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-subj', '/CN=test CA');
    openssl('req', ...ec.filter((a) => a !== '-days' && a !== '1'), '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=svc.example.test');
    execFileSync('sh', ['-c', 'printf "subjectAltName=DNS:svc.example.test" > ext && openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -out leaf.pem -extfile ext'], { cwd: dir, stdio: 'ignore' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('trusts a self-signed certificate given as the CA file, by name and by IP address', () => {
    expect(untrustedQuicReason([der('self.pem')], 'localhost', { ca: pem('self.pem') })).toBeUndefined();
    expect(untrustedQuicReason([der('self.pem')], '127.0.0.1', { ca: pem('self.pem') })).toBeUndefined();
  });

  it('trusts a leaf signed by the CA file, and refuses it for another host or another CA', () => {
    expect(untrustedQuicReason([der('leaf.pem')], 'svc.example.test', { ca: pem('ca.pem') })).toBeUndefined();
    expect(untrustedQuicReason([der('leaf.pem')], 'other.example.test', { ca: pem('ca.pem') })).toMatch(/does not name other.example.test/);
    expect(untrustedQuicReason([der('leaf.pem')], 'svc.example.test', { ca: pem('self.pem') })).toMatch(/does not chain to the CA file/);
    expect(untrustedQuicReason([der('self.pem')], 'localhost', { ca: pem('ca.pem') })).toMatch(/does not chain to the CA file/);
  });

  it('lets a pin alone decide', () => {
    const pin = createHash('sha256').update(der('leaf.pem')).digest('hex');
    expect(untrustedQuicReason([der('leaf.pem')], 'anything', { pin })).toBeUndefined();
    expect(untrustedQuicReason([der('self.pem')], 'localhost', { pin })).toMatch(/does not match the pinned/);
  });
});
