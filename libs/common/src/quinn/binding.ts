/**
 * quinn (Rust QUIC) through the native binding of `@chainsafe/libp2p-quic` 1.1.8. Only its
 * per-platform packages (`@chainsafe/libp2p-quic-<platform>`, a prebuilt `.node` file each, pinned
 * exactly in apps/server and apps/runtime) are used, not its libp2p-shaped JavaScript: that keeps
 * the libp2p dependency tree out and the hot path to one native call per read or write. The
 * binding is an internal interface of that package, so binding.spec.ts fails loudly when an
 * upgrade changes its shape. Loaded on first use: a process that never dials QUIC never loads it.
 */

/** The binding's TLS identity: a libp2p Ed25519 key (identity.ts) and the transport settings. */
export interface QuinnSettings {
  privateKeyProto: Uint8Array;
  handshakeTimeout: number;
  maxIdleTimeout: number;
  /**
   * ms of silence before this side sends a PING. The binding has no "off": 0 is not off but
   * `Some(0)`, a PING for every packet received, so an idle connection ping-pongs at the peer's
   * ACK delay (~760 PINGs/s and ~10 ms of CPU per second each, measured). QUINN_NO_KEEPALIVE is off.
   */
  keepAliveInterval: number;
  /** Bidirectional streams the peer may have open at once. */
  maxConcurrentStreamLimit: number;
  /** Receive window of one stream and of the whole connection (bytes; u32). */
  maxStreamData: number;
  maxConnectionData: number;
  receiveBufferSize: number;
  sendBufferSize: number;
}

/**
 * maxConnectionData of a tunnel: as large as the binding takes (u32). quinn returns connection
 * credit only as the application reads, so a connection window the size of two stream windows let
 * two forwards held back by slow readers take all of it and freeze every other stream of the
 * device (new operations included). Each stream's own window (maxStreamData) still bounds what it
 * buffers, as HTTP/2's stream windows do on the TCP carrier (whose session window is returned on
 * receipt).
 */
export const QUINN_UNBOUNDED_CONNECTION_WINDOW = 0xffff_ffff;

/** keepAliveInterval for a side that sends no keep-alive (u32 max: ~49.7 days, beyond any idle timeout). */
export const QUINN_NO_KEEPALIVE = 0xffff_ffff;

export interface QuinnStream {
  read(maxLen: number): Promise<Uint8Array | null>;
  write(data: Uint8Array): Promise<void>;
  finishWrite(): Promise<void>;
  resetWrite(): Promise<void>;
  stopRead(): Promise<void>;
}

export interface QuinnConnection {
  inboundStream(): Promise<QuinnStream>;
  outboundStream(): Promise<QuinnStream>;
  /** Closes at once (application code 0, no reason: the tunnel's GOAWAY carries reasons). */
  abort(): void;
  /** `/ip4/<addr>/udp/<port>/quic-v1/p2p/<peer id>`: the peer's address and verified TLS key. */
  remoteMultiaddr(): string;
  closed(): Promise<void>;
  /** quinn's counters for this connection (a few of many; the binding names them camelCase). */
  stats(): QuinnConnectionStats;
}

export interface QuinnConnectionStats {
  frameTxPing: number;
  frameRxPing: number;
  udpTxDatagrams: number;
  udpRxDatagrams: number;
  /** quinn's smoothed round-trip time of the path, whole milliseconds (333 before any sample). */
  pathRtt: number;
}

export interface QuinnServer {
  port(): number;
  inboundConnection(): Promise<QuinnConnection>;
  abort(): Promise<void>;
}

export interface QuinnClient {
  outboundConnection(ip: string, port: number): Promise<QuinnConnection>;
  abort(): void;
}

export interface QuinnBinding {
  QuinnConfig: new (settings: QuinnSettings) => object;
  Server: new (config: object, ip: string, port: number) => QuinnServer;
  /** family: 0 = IPv4, 1 = IPv6 (the binding's SocketFamily). */
  Client: new (config: object, family: 0 | 1) => QuinnClient;
}

/** The platforms `@chainsafe/libp2p-quic` 1.1.8 ships a binding for (no 32-bit ARM). */
export function quinnPackageName(platform = process.platform, arch = process.arch, musl = isMusl()): string | undefined {
  if (platform === 'darwin' && (arch === 'x64' || arch === 'arm64')) return `@chainsafe/libp2p-quic-darwin-${arch}`;
  if (platform === 'win32' && arch === 'x64') return '@chainsafe/libp2p-quic-win32-x64-msvc';
  if (platform === 'linux' && (arch === 'x64' || arch === 'arm64')) return `@chainsafe/libp2p-quic-linux-${arch}-${musl ? 'musl' : 'gnu'}`;
  return undefined;
}

function isMusl(): boolean {
  if (process.platform !== 'linux') return false;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime === undefined;
}

let loaded: QuinnBinding | undefined;

/** The binding, or an Error saying why this platform has none (QUIC is then unavailable). */
export function loadQuinn(): QuinnBinding {
  if (loaded) return loaded;
  const name = quinnPackageName();
  if (!name) throw new Error(`no QUIC binding for ${process.platform}-${process.arch}`);
  let binding: QuinnBinding;
  try {
    binding = require(name) as QuinnBinding;
  } catch (error) {
    throw new Error(`QUIC binding ${name} could not be loaded: ${(error as Error).message}`);
  }
  const missing = missingParts(binding);
  if (missing.length > 0) throw new Error(`QUIC binding ${name} lacks ${missing.join(', ')} (not version 1.1.8?)`);
  loaded = binding;
  return binding;
}

const SHAPE: Record<string, string[]> = {
  QuinnConfig: [],
  Server: ['port', 'inboundConnection', 'abort'],
  Client: ['outboundConnection', 'abort'],
  Connection: ['inboundStream', 'outboundStream', 'abort', 'remoteMultiaddr', 'closed', 'stats'],
  Stream: ['read', 'write', 'finishWrite', 'resetWrite', 'stopRead'],
};

/** The classes and methods this project calls that the binding does not have. */
export function missingParts(binding: object): string[] {
  const missing: string[] = [];
  for (const [name, methods] of Object.entries(SHAPE)) {
    const cls = (binding as Record<string, unknown>)[name];
    if (typeof cls !== 'function') {
      missing.push(name);
      continue;
    }
    for (const method of methods) if (typeof (cls.prototype as Record<string, unknown>)[method] !== 'function') missing.push(`${name}.${method}`);
  }
  return missing;
}
