import { createPrivateKey, createPublicKey, hkdfSync, KeyObject } from 'node:crypto';

/**
 * QUIC's TLS identity (libp2p-tls): each side is an Ed25519 key in a self-signed certificate that
 * the handshake checks by that key. A peer is named by its libp2p peer id, the base58 identity
 * multihash of its public key; the binding reports the verified peer id of the other side.
 */
export interface QuinnIdentity {
  /** The private key in libp2p's protobuf form, what QuinnConfig takes. */
  privateKeyProto: Uint8Array;
  peerId: string;
}

const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** libp2p KeyType enum: Ed25519. */
const KEY_TYPE_ED25519 = 1;

/** The identity for a 32-byte Ed25519 seed. */
export function quinnIdentityFromSeed(seed: Buffer): QuinnIdentity {
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicRaw = rawPublicKey(createPublicKey(privateKey));
  return { privateKeyProto: keyProto(Buffer.concat([seed, publicRaw])), peerId: peerIdOf(publicRaw) };
}

/**
 * A stable identity derived (HKDF) from other secret key material, e.g. the tunnel's TLS private
 * key: the QUIC identity then changes exactly when that key does, with no second key file.
 */
export function deriveQuinnIdentity(secret: Buffer | string, purpose: string): QuinnIdentity {
  return quinnIdentityFromSeed(Buffer.from(hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), purpose, 32)));
}

/** The peer id at the end of the binding's `remoteMultiaddr()`. */
export function peerIdOfMultiaddr(multiaddr: string): string | undefined {
  return /\/p2p\/([1-9A-HJ-NP-Za-km-z]+)$/.exec(multiaddr)?.[1];
}

function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url');
}

/** libp2p's PrivateKey/PublicKey protobuf: field 1 (type, varint), field 2 (data, bytes). */
function keyProto(data: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x08, KEY_TYPE_ED25519, 0x12, data.length]), data]);
}

function peerIdOf(publicRaw: Buffer): string {
  const proto = keyProto(publicRaw);
  // An identity multihash (code 0x00) of the protobuf public key: short keys are not hashed.
  return base58(Buffer.concat([Buffer.from([0x00, proto.length]), proto]));
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let out = '';
  while (value > 0n) {
    out = ALPHABET[Number(value % 58n)] + out;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** Prefix of the message a server's TLS certificate signs to vouch for its QUIC peer id. */
export const QUIC_IDENTITY_CONTEXT = 'svc tunnel QUIC peer id: ';
