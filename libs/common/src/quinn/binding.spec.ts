import { randomBytes } from 'node:crypto';
import { loadQuinn, missingParts, quinnPackageName } from './binding';
import { deriveQuinnIdentity, peerIdOfMultiaddr, quinnIdentityFromSeed } from './identity';

/**
 * The binding of @chainsafe/libp2p-quic is an internal interface of that package: this fails
 * loudly when an upgrade changes the classes and methods svc calls, or what they do.
 */
describe('quinn binding (@chainsafe/libp2p-quic 1.1.8)', () => {
  const settings = { handshakeTimeout: 5000, maxIdleTimeout: 5000, keepAliveInterval: 1000, maxConcurrentStreamLimit: 1, maxStreamData: 1 << 20, maxConnectionData: 1 << 21, receiveBufferSize: 1 << 20, sendBufferSize: 1 << 20 };

  it('has a package for this platform, with every class and method svc calls', () => {
    expect(quinnPackageName()).toBeDefined();
    const binding = loadQuinn();
    expect(missingParts(binding)).toEqual([]);
    expect(missingParts({})).toContain('Server');
  });

  it('names no package where none ships (32-bit ARM)', () => {
    expect(quinnPackageName('linux', 'arm', false)).toBeUndefined();
  });

  it('carries bytes both ways on one stream and reports the server key the client derived', async () => {
    const quinn = loadQuinn();
    const serverIdentity = deriveQuinnIdentity('secret', 'spec');
    const server = new quinn.Server(new quinn.QuinnConfig({ ...settings, privateKeyProto: serverIdentity.privateKeyProto }), '127.0.0.1', 0);
    const client = new quinn.Client(new quinn.QuinnConfig({ ...settings, privateKeyProto: quinnIdentityFromSeed(randomBytes(32)).privateKeyProto }), 0);
    try {
      const echoed = server.inboundConnection().then(async (connection) => {
        const stream = await connection.inboundStream();
        const chunk = await stream.read(1024);
        await stream.write(chunk!);
        await stream.finishWrite();
      });
      const connection = await client.outboundConnection('127.0.0.1', server.port());
      expect(peerIdOfMultiaddr(connection.remoteMultiaddr())).toBe(serverIdentity.peerId);
      const stream = await connection.outboundStream();
      await stream.write(Buffer.from('ping'));
      await echoed;
      expect(Buffer.from((await stream.read(1024))!).toString()).toBe('ping');
      expect(await stream.read(1024)).toBeNull();
      // auto decides on the measured round trip (whole ms; quinn's 333 ms guess before any sample).
      expect(connection.stats().pathRtt).toEqual(expect.any(Number));
      expect(connection.stats().pathRtt).toBeLessThan(333);
      connection.abort();
    } finally {
      client.abort();
      await server.abort();
    }
  });

  it('derives the same identity from the same secret and a libp2p Ed25519 peer id', () => {
    expect(deriveQuinnIdentity('a', 'p').peerId).toBe(deriveQuinnIdentity('a', 'p').peerId);
    expect(deriveQuinnIdentity('a', 'p').peerId).not.toBe(deriveQuinnIdentity('b', 'p').peerId);
    expect(deriveQuinnIdentity('a', 'p').peerId).toMatch(/^12D3KooW/);
  });
});
