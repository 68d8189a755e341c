import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import { Duplex } from 'node:stream';
import { TUNNEL_ALPN } from '@svc/common';
import { loadQuic } from './quic-module';
import { untrustedQuicReason } from './quic-trust';
import type { TunnelTrust } from './tls-trust';
import { untrustedServer } from './untrusted-server';

export interface QuicDialOptions {
  host: string;
  port: number;
  trust: TunnelTrust;
  timeoutMs: number;
  /** Largest UDP payload this runtime sends. */
  maxDatagramBytes: number;
  /** The fingerprint the server announces, for the hint when its certificate is not trusted. */
  announcedSha256?: string;
}

/** Per-stream and connection receive windows: enough in flight for a fast path, bounded memory. */
const STREAM_WINDOW_BYTES = 8 * 1024 * 1024;
/** Silence after which the connection is dead (the server uses the same); PINGs keep a live one busy. */
const IDLE_TIMEOUT_MS = 15_000;
const KEEPALIVE_MS = 5000;
/** quiche hands stream data to JS in chunks of this size (its default, 4 KiB, costs a task per chunk). */
const READ_CHUNK_BYTES = 64 * 1024;
/** The largest IPv6 UDP payload. */
const MAX_UDP_PAYLOAD_BYTES = 65527;

/**
 * Dials the QUIC carrier (ALPN svc-tunnel/1, the same certificate rules as TLS) and opens the one
 * bidirectional stream a v1 tunnel runs on; returns it as a Duplex, on which the hello and the
 * reverse HTTP/2 session follow exactly as on a TLS socket. Destroying the Duplex closes the
 * connection; a lost connection destroys the Duplex.
 */
export async function dialQuic(options: QuicDialOptions): Promise<Duplex> {
  const quic = await loadQuic();
  const { host, port, trust } = options;
  let refusal: string | undefined;
  const checkInJs = trust.pin !== undefined || trust.ca !== undefined;
  let client: any;
  try {
    client = await quic.QUICClient.createQUICClient(
      {
        host,
        port,
        serverName: isIP(host) === 0 ? host : undefined,
        // Dual-stack unless the target is IPv4 (a v4 target from `::` works only where v4-mapped addresses do).
        localHost: isIP(host) === 4 ? '0.0.0.0' : '::',
        crypto: { ops: { randomBytes: async (data: ArrayBuffer) => void webcrypto.getRandomValues(new Uint8Array(data)) } },
        config: {
          applicationProtos: [TUNNEL_ALPN],
          verifyPeer: true,
          // With a pin or a CA file the check is ours (quiche would skip IP addresses); else the platform store decides.
          verifyCallback: checkInJs
            ? async (certs: Uint8Array[]) => {
                refusal = untrustedQuicReason(certs, host, trust);
                return refusal === undefined ? undefined : quic.CryptoError.BadCertificate;
              }
            : undefined,
          maxIdleTimeout: IDLE_TIMEOUT_MS,
          keepAliveIntervalTime: KEEPALIVE_MS,
          maxSendUdpPayloadSize: options.maxDatagramBytes,
          // What the server may send us: its own setting decides (the default would cap it at 1350).
          maxRecvUdpPayloadSize: MAX_UDP_PAYLOAD_BYTES,
          initialMaxData: 2 * STREAM_WINDOW_BYTES,
          initialMaxStreamDataBidiLocal: STREAM_WINDOW_BYTES,
          initialMaxStreamDataBidiRemote: STREAM_WINDOW_BYTES,
          initialMaxStreamsBidi: 0,
          initialMaxStreamsUni: 0,
          readableChunkSize: READ_CHUNK_BYTES,
        },
        logger: new quic.Logger('svc-quic', quic.LogLevel.SILENT),
      },
      { timer: options.timeoutMs },
    );
  } catch (error) {
    const why = refusal ?? (error as Error).message;
    const message = `QUIC connection to ${host}:${port} failed: ${why}`;
    if (refusal !== undefined || error instanceof quic.LocalTlsError) throw untrustedServer(message, trust, options.announcedSha256);
    throw new Error(message);
  }
  const stream = client.connection.newStream('bidi');
  const duplex = Duplex.fromWeb({ readable: stream.readable, writable: stream.writable });
  const close = () => void client.destroy({ isApp: true, errorCode: 0, force: true }).catch(() => undefined);
  duplex.once('close', close);
  client.addEventListener(quic.events.EventQUICClientError.name, () => undefined);
  void client.closedP.then(() => duplex.destroy(new Error('QUIC connection closed')));
  return duplex;
}
