import { createSocket } from 'node:dgram';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TunnelAcceptor } from '../tunnel-carrier';
import { deriveQuinnIdentity } from '@svc/common';
import { QuicCarrier, QuicPortInUseError } from './quic.carrier';

describe('QuicCarrier', () => {
  let dir: string;
  let key: string;
  const acceptor: TunnelAcceptor = { authenticate: async () => null, accepted: () => undefined, heartbeatSecs: 10 };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-quic-carrier-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-keyout', 'key.pem', '-out', 'cert.pem', '-subj', '/CN=localhost'], { cwd: dir, stdio: 'ignore' });
    key = readFileSync(join(dir, 'key.pem'), 'utf8');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('binds an ephemeral UDP port', async () => {
    const carrier = new QuicCarrier({ host: '127.0.0.1', port: 0, identity: deriveQuinnIdentity(key, 'test'), handshakeTimeoutMs: 10_000, caps: { perAddress: 10, total: 10 } });
    const { port } = await carrier.start(acceptor);
    expect(port).toBeGreaterThan(0);
    await carrier.close();
  });

  it('reports a UDP port that is taken as QuicPortInUseError', async () => {
    const taken = createSocket('udp4');
    await new Promise<void>((resolve) => taken.bind(0, '127.0.0.1', resolve));
    const carrier = new QuicCarrier({ host: '127.0.0.1', port: taken.address().port, identity: deriveQuinnIdentity(key, 'test'), handshakeTimeoutMs: 10_000, caps: { perAddress: 10, total: 10 } });
    await expect(carrier.start(acceptor)).rejects.toBeInstanceOf(QuicPortInUseError);
    await carrier.close();
    taken.close();
  });
});
