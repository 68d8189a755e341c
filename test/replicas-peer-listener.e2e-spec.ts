/**
 * Issue 18, test 10: replica B's peer listener (PEER_PORT, a real server process) completes a
 * connection only with a replica's key (TLS-PSK derived from SERVER_SECRET with HKDF): plain TCP
 * speaking HTTP, TLS without the key and TLS with another secret's key all fail; with the key, it
 * serves only devices B itself holds (never a further hop). The devices' tunnels are runtime stubs.
 */
import { connect as h2connect, constants as h2 } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { TUNNEL_HEADERS, tunnelPath, TUNNEL_OPS, encodeStreamArgs } from '@svc/common';
import { eventually } from './fixtures/eventually';
import { useReplicaFleet } from './fixtures/replica-fleet';
import { peerClientTls, peerKey } from '../apps/server/src/replicas/peer-key';
import { PEER_HEADERS } from '../apps/server/src/replicas/peer-protocol';

const ALICE = 'alice@replica-peer-listener.test';
/** Registered, held by no replica. */
const OFFLINE = 'peer-listener-off';
const ON_A = 'peer-listener-on-a';
const ON_B = 'peer-listener-on-b';

describe('replicas on NATS: the peer listener refuses anything but a replica', () => {
  const fleet = useReplicaFleet({ users: { alice: ALICE }, devices: { [OFFLINE]: { owner: 'alice' }, [ON_A]: { owner: 'alice' }, [ON_B]: { owner: 'alice' } } });
  const peerPort = () => fleet.b.peerPort;

  beforeAll(async () => {
    await fleet.stub(ON_A, 'a');
    await fleet.stub(ON_B, 'b');
  });

  it('closes a plain TCP connection that speaks HTTP', async () => {
    const answer = await new Promise<string>((resolve) => {
      const socket = netConnect(peerPort(), '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
      let got = '';
      socket.on('data', (chunk) => (got += chunk.toString('latin1')));
      socket.on('error', () => resolve(got));
      socket.on('close', () => resolve(got));
    });
    expect(answer).not.toMatch(/HTTP\/1\.1 200/);
  });

  it('fails the handshake of a TLS client without the peer key, or with a key from another SERVER_SECRET', async () => {
    const handshake = (options: ConnectionOptions) =>
      new Promise<string>((resolve) => {
        const socket = tlsConnect(options);
        socket.once('secureConnect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      });
    expect(await handshake({ host: '127.0.0.1', port: peerPort(), rejectUnauthorized: false })).not.toBe('connected');
    expect(await handshake(peerClientTls(peerKey(Buffer.from('another-server-secret-of-32-chars!!')), '127.0.0.1', peerPort()))).not.toBe('connected');
    // The control: the replicas' own key completes it.
    expect(await handshake(peerClientTls(peerKey(fleet.a.config.serverSecret), '127.0.0.1', peerPort()))).toBe('connected');
  });

  it('with the key, serves only devices B itself holds: one held by A (which B knows) or by nobody is refused, never hopped further', async () => {
    await eventually('B to know the device A holds', async () => (await fleet.user('alice').on('b').route('device_status.one', { device: ON_A })).status === 'online');
    const session = h2connect(`http://127.0.0.1:${peerPort()}`, { createConnection: () => tlsConnect(peerClientTls(peerKey(fleet.a.config.serverSecret), '127.0.0.1', peerPort())) });
    const peerExec = (device: string) =>
      new Promise<{ status: number; refusal: unknown }>((resolve, reject) => {
        const stream = session.request({
          [h2.HTTP2_HEADER_METHOD]: 'POST',
          [h2.HTTP2_HEADER_PATH]: tunnelPath(TUNNEL_OPS.exec),
          [PEER_HEADERS.device]: device,
          [TUNNEL_HEADERS.args]: encodeStreamArgs({ command: ['true'] }),
          [TUNNEL_HEADERS.requestId]: 'req-peer-test',
          [TUNNEL_HEADERS.actor]: ALICE,
        });
        stream.on('response', (headers) => resolve({ status: Number(headers[h2.HTTP2_HEADER_STATUS]), refusal: headers[PEER_HEADERS.refusal] }));
        stream.on('error', reject);
        stream.resume();
        stream.end();
      });
    try {
      // The control: B's own device is served.
      expect(await peerExec(ON_B)).toEqual({ status: 200, refusal: undefined });
      expect(await peerExec(ON_A)).toEqual({ status: 503, refusal: 'DEVICE_OFFLINE' });
      expect(await peerExec(OFFLINE)).toEqual({ status: 503, refusal: 'DEVICE_OFFLINE' });
    } finally {
      session.close();
    }
  });
});
