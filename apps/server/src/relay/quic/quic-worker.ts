/**
 * The QUIC carrier's worker thread: owns the UDP socket and the @matrixai/quic server, so packet
 * work (crypto, congestion control, quiche's per-packet JS) never runs on the main thread where
 * the REST API and the other tunnels live. Each accepted connection's first bidirectional stream
 * is bridged to the main thread (quic-bridge-messages.ts); everything above bytes happens there.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { BRIDGE_WINDOW_BYTES, FromWorker, QuicWorkerSettings, ToWorker } from './quic-bridge-messages';
import { loadQuic, QuicLibrary } from './quic-module';
import { ConnectionLimits } from '../connection-limits';

/** quiche hands stream data to JS in chunks of this size (its default, 4 KiB, costs a task per chunk). */
const READ_CHUNK_BYTES = 64 * 1024;
/** The largest IPv6 UDP payload. */
const MAX_UDP_PAYLOAD_BYTES = 65527;

interface Bridged {
  connection: any;
  writer?: WritableStreamDefaultWriter<Uint8Array>;
  /** Serialises writes toward the peer; each credits its bytes back once quiche took them. */
  writes: Promise<void>;
  /** Bytes posted to the main thread and not yet credited back. */
  inFlight: number;
  wakeReader?: () => void;
  closed: boolean;
}

const port = parentPort!;
const settings = workerData as QuicWorkerSettings;
const bridged = new Map<number, Bridged>();
let nextId = 1;
let server: any;
const limits = new ConnectionLimits(settings.caps, (message) => post({ t: 'refused', message }));

function post(message: FromWorker): void {
  port.postMessage(message);
}

function hmac(key: ArrayBuffer, data: ArrayBuffer): Buffer {
  return createHmac('sha256', Buffer.from(key)).update(Buffer.from(data)).digest();
}

function toArrayBuffer(buffer: Buffer): ArrayBuffer {
  return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length) as ArrayBuffer;
}

async function start(quic: QuicLibrary): Promise<void> {
  server = new quic.QUICServer({
    // Retry tokens are signed and checked by this server alone: an HMAC with a per-process key.
    crypto: {
      key: toArrayBuffer(randomBytes(32)),
      ops: {
        sign: async (key: ArrayBuffer, data: ArrayBuffer) => toArrayBuffer(hmac(key, data)),
        verify: async (key: ArrayBuffer, data: ArrayBuffer, sig: ArrayBuffer) => {
          const expected = hmac(key, data);
          return sig.byteLength === expected.length && timingSafeEqual(expected, Buffer.from(sig));
        },
      },
    },
    config: {
      key: settings.key,
      cert: settings.cert,
      verifyPeer: false,
      applicationProtos: [settings.alpn],
      maxIdleTimeout: settings.idleTimeoutMs,
      maxSendUdpPayloadSize: settings.maxDatagramBytes,
      // What the peer may send us: its own setting decides (the default would cap it at 1350).
      maxRecvUdpPayloadSize: MAX_UDP_PAYLOAD_BYTES,
      initialMaxData: 2 * BRIDGE_WINDOW_BYTES,
      initialMaxStreamDataBidiRemote: BRIDGE_WINDOW_BYTES,
      initialMaxStreamDataBidiLocal: BRIDGE_WINDOW_BYTES,
      // One stream per tunnel (v1); more are refused by quiche itself.
      initialMaxStreamsBidi: 1,
      initialMaxStreamsUni: 0,
      readableChunkSize: READ_CHUNK_BYTES,
    },
    logger: new quic.Logger('svc-quic', quic.LogLevel.ERROR),
  });
  server.addEventListener(quic.events.EventQUICServerConnection.name, (evt: any) => accept(quic, evt.detail));
  await server.start({ host: settings.host, port: settings.port });
  post({ t: 'listening', port: server.port });
}

function accept(quic: QuicLibrary, connection: any): void {
  const release = limits.acquire(String(connection.remoteHost).replace(/^::ffff:/, ''));
  if (!release) {
    connection.stop({ isApp: true, errorCode: 0, reason: new TextEncoder().encode('too many connections'), force: true }).catch(() => undefined);
    return;
  }
  connection.addEventListener(quic.events.EventQUICConnectionStopped.name, release, { once: true });
  const id = nextId++;
  const entry: Bridged = { connection, writes: Promise.resolve(), inFlight: 0, closed: false };
  bridged.set(id, entry);
  const noStream = setTimeout(() => close(id, 'no stream opened'), settings.streamTimeoutMs);
  connection.addEventListener(quic.events.EventQUICConnectionStopped.name, () => {
    clearTimeout(noStream);
    finish(id, 'connection closed');
  }, { once: true });
  connection.addEventListener(quic.events.EventQUICConnectionError.name, () => undefined);
  connection.addEventListener(quic.events.EventQUICConnectionStream.name, (evt: any) => {
    const stream = evt.detail;
    if (entry.writer || entry.closed) {
      stream.cancel(new Error('one stream per tunnel'));
      return;
    }
    clearTimeout(noStream);
    entry.writer = stream.writable.getWriter();
    entry.writer!.closed.catch(() => undefined);
    post({ t: 'open', id, remoteAddress: String(connection.remoteHost).replace(/^::ffff:/, '') });
    void pump(id, entry, stream.readable.getReader());
  });
}

/** Peer → main thread, never more than the window ahead of what the main thread consumed. */
async function pump(id: number, entry: Bridged, reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    for (;;) {
      while (entry.inFlight >= BRIDGE_WINDOW_BYTES && !entry.closed) await new Promise<void>((wake) => (entry.wakeReader = wake));
      if (entry.closed) return;
      const { value, done } = await reader.read();
      if (done) {
        post({ t: 'end', id });
        return;
      }
      entry.inFlight += value.length;
      post({ t: 'data', id, chunk: value });
    }
  } catch {
    close(id, 'stream reset by the peer');
  }
}

function onMessage(message: ToWorker): void {
  if (message.t === 'stop') {
    void stop();
    return;
  }
  const entry = bridged.get(message.id);
  if (!entry) return;
  switch (message.t) {
    case 'data': {
      const { chunk } = message;
      entry.writes = entry.writes
        .then(() => entry.writer!.write(chunk))
        .then(() => post({ t: 'credit', id: message.id, bytes: chunk.length }))
        .catch(() => close(message.id, 'stream write failed'));
      break;
    }
    case 'end':
      entry.writes = entry.writes.then(() => entry.writer!.close()).catch(() => undefined);
      break;
    case 'credit':
      entry.inFlight -= message.bytes;
      entry.wakeReader?.();
      entry.wakeReader = undefined;
      break;
    case 'close':
      close(message.id, 'closed by the server');
      break;
  }
}

/** Bytes the main thread already wrote (e.g. a GOAWAY naming the reason) get this long to leave. */
const FLUSH_BEFORE_CLOSE_MS = 500;

function close(id: number, reason: string): void {
  const entry = bridged.get(id);
  if (!entry) return;
  finish(id, reason);
  const flushed = Promise.race([entry.writes, new Promise((resolve) => setTimeout(resolve, FLUSH_BEFORE_CLOSE_MS))]);
  void flushed.then(() => entry.connection.stop({ isApp: true, errorCode: 0, reason: new TextEncoder().encode(reason), force: true }).catch(() => undefined));
}

function finish(id: number, reason: string): void {
  const entry = bridged.get(id);
  if (!entry) return;
  bridged.delete(id);
  entry.closed = true;
  entry.wakeReader?.();
  post({ t: 'closed', id, reason });
}

async function stop(): Promise<void> {
  const writes = [...bridged.values()].map((entry) => entry.writes);
  for (const id of [...bridged.keys()]) finish(id, 'server stopping');
  await Promise.race([Promise.all(writes), new Promise((resolve) => setTimeout(resolve, FLUSH_BEFORE_CLOSE_MS))]);
  await server?.stop({ isApp: true, errorCode: 0, reason: new TextEncoder().encode('server shutting down'), force: true }).catch(() => undefined);
  post({ t: 'stopped' });
}

// @matrixai/quic creates and cancels a timer, with an Error, per packet; stack capture is a large
// share of this thread's CPU, and nothing here reads those stacks.
Error.stackTraceLimit = 0;
port.on('message', onMessage);
loadQuic()
  .then(start)
  .catch((error: NodeJS.ErrnoException) => post({ t: 'failed', message: error.message, code: error.code ?? (error.cause as NodeJS.ErrnoException | undefined)?.code }));
