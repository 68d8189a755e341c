import { hkdfSync } from 'node:crypto';
import type { ConnectionOptions, TlsOptions } from 'node:tls';

/** HKDF label of the peer key: changing it (or SERVER_SECRET) changes the key. */
const PEER_KEY_INFO = 'svc replica peer key v1';
/** The PSK identity replicas present; the key, not the name, is the proof. */
export const PEER_IDENTITY = 'svc-replica';
/**
 * TLS 1.2 with a pre-shared key (Node's TLS-PSK does not do 1.3): ephemeral ECDHE for forward
 * secrecy, then AEAD. Only a holder of the key completes the handshake, on either side.
 */
const PEER_TLS = { ciphers: 'ECDHE-PSK-CHACHA20-POLY1305:ECDHE-PSK-AES256-CBC-SHA384', minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' } as const;

/** The key every replica derives from the SERVER_SECRET they share; it authenticates peer connections. */
export function peerKey(serverSecret: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', serverSecret, Buffer.alloc(0), PEER_KEY_INFO, 32));
}

export function peerServerTls(key: Buffer): TlsOptions {
  return { ...PEER_TLS, ALPNProtocols: ['h2'], pskCallback: (_socket, identity) => (identity === PEER_IDENTITY ? key : null) };
}

export function peerClientTls(key: Buffer, host: string, port: number): ConnectionOptions {
  return { ...PEER_TLS, host, port, ALPNProtocols: ['h2'], pskCallback: () => ({ psk: key, identity: PEER_IDENTITY }), checkServerIdentity: () => undefined };
}
