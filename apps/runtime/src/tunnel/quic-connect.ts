import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { CONTROL_STREAM_READ_BYTES, loadQuinn, peerIdOfMultiaddr, QuinnConnection, quinnIdentityFromSeed, QuinnDuplex, QUINN_UNBOUNDED_CONNECTION_WINDOW, TUNNEL_HTTP2 } from '@svc/common';
import { AnnouncedQuicIdentity, untrustedQuicIdentityReason } from './quic-trust';
import type { TunnelTrust } from './tls-trust';
import { untrustedServer } from './untrusted-server';

export interface QuicDialOptions {
  host: string;
  port: number;
  trust: TunnelTrust;
  timeoutMs: number;
  /** The server's QUIC key as GET /auth/config announced it; without it QUIC cannot be trusted. */
  identity?: AnnouncedQuicIdentity;
  /** The fingerprint the server announces, for the hint when its certificate is not trusted. */
  announcedSha256?: string;
}

/** Per-stream receive window: enough in flight for a fast path, bounded memory. */
const STREAM_WINDOW_BYTES = 8 * 1024 * 1024;
/** Silence after which the connection is dead (the server uses the same); PINGs keep a live one busy. */
const IDLE_TIMEOUT_MS = 15_000;
const KEEPALIVE_MS = 5000;
/** Operation streams the server may have open at once: the same bound as HTTP/2's on TCP. */
const OPERATION_STREAMS = TUNNEL_HTTP2.maxConcurrentStreams;

/** The tunnel's first stream (hello, then control messages) and the connection the operation streams arrive on. */
export interface QuicTunnelSocket extends Duplex {
  readonly connection: QuinnConnection;
  readonly remoteAddress: string;
}

/**
 * Dials the QUIC carrier (quinn, libp2p-tls) and opens the tunnel's first bidirectional stream;
 * returns it as a Duplex for the hello (then the control stream, or reverse HTTP/2 with an older
 * server), with the connection the server's operation streams arrive on. The server's key is checked before any byte is sent: it must be the
 * peer id its tunnel certificate vouches for (quic-trust.ts). Destroying the Duplex closes the
 * connection; a lost connection destroys the Duplex.
 */
export async function dialQuic(options: QuicDialOptions): Promise<QuicTunnelSocket> {
  const { host, port, trust, identity } = options;
  const fail = (why: string) => new Error(`QUIC connection to ${host}:${port} failed: ${why}`);
  if (!identity) throw fail('the server announces no QUIC identity (GET /auth/config)');
  const refusal = untrustedQuicIdentityReason(identity, host, trust);
  if (refusal !== undefined) throw untrustedServer(`QUIC connection to ${host}:${port} refused: ${refusal}`, trust, options.announcedSha256);
  const quinn = loadQuinn();
  // The device authenticates with its API key in the hello; its TLS key here is a throwaway.
  const config = new quinn.QuinnConfig({
    privateKeyProto: quinnIdentityFromSeed(randomBytes(32)).privateKeyProto,
    handshakeTimeout: options.timeoutMs,
    maxIdleTimeout: IDLE_TIMEOUT_MS,
    keepAliveInterval: KEEPALIVE_MS,
    // One stream per operation, opened by the server (tunnel-connection.ts); reverse HTTP/2 opens none.
    maxConcurrentStreamLimit: OPERATION_STREAMS,
    maxStreamData: STREAM_WINDOW_BYTES,
    maxConnectionData: QUINN_UNBOUNDED_CONNECTION_WINDOW,
    receiveBufferSize: 4 * 1024 * 1024,
    sendBufferSize: 4 * 1024 * 1024,
  });
  const address = isIP(host) ? host : await resolve(host);
  const client = new quinn.Client(config, isIP(address) === 6 ? 1 : 0);
  let connection: QuinnConnection;
  try {
    connection = await withTimeout(client.outboundConnection(address, port), options.timeoutMs);
  } catch (error) {
    client.abort();
    throw fail((error as Error).message);
  }
  const presented = peerIdOfMultiaddr(connection.remoteMultiaddr());
  if (presented !== identity.peer_id) {
    connection.abort();
    client.abort();
    throw untrustedServer(`QUIC connection to ${host}:${port} refused: the server's QUIC key ${presented} is not the announced ${identity.peer_id}`, trust, options.announcedSha256);
  }
  const stream = await connection.outboundStream();
  const duplex = new QuinnDuplex(stream, host, { minReadBytes: CONTROL_STREAM_READ_BYTES });
  duplex.once('close', () => {
    connection.abort();
    client.abort();
  });
  void connection.closed().then(() => duplex.destroy(new Error('QUIC connection closed')));
  return Object.assign(duplex, { connection });
}

async function resolve(host: string): Promise<string> {
  const { lookup } = await import('node:dns/promises');
  return (await lookup(host)).address;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no QUIC handshake within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
