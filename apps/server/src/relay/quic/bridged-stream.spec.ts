import { BridgedStream } from './bridged-stream';
import { BRIDGE_WINDOW_BYTES, ToWorker } from './quic-bridge-messages';

describe('BridgedStream (main-thread end of a QUIC tunnel stream)', () => {
  const sent: ToWorker[] = [];
  const stream = () => new BridgedStream(7, '127.0.0.1', (message) => sent.push(message));
  const bytes = (type: ToWorker['t']) => sent.filter((m) => m.t === type).reduce((sum, m) => sum + ('chunk' in m ? m.chunk.length : 'bytes' in m ? m.bytes : 0), 0);
  beforeEach(() => sent.splice(0));

  it('never sends more than one window ahead of the credits the worker returned', async () => {
    const s = stream();
    const chunk = Buffer.alloc(256 * 1024);
    const writes = Array.from({ length: 16 }, () => new Promise<void>((resolve) => s.write(chunk, () => resolve())));
    await new Promise((resolve) => setImmediate(resolve));
    expect(bytes('data')).toBe(BRIDGE_WINDOW_BYTES);
    s.credited(BRIDGE_WINDOW_BYTES);
    await new Promise((resolve) => setImmediate(resolve));
    expect(bytes('data')).toBe(2 * BRIDGE_WINDOW_BYTES);
    s.credited(2 * BRIDGE_WINDOW_BYTES);
    await Promise.all(writes);
    expect(bytes('data')).toBe(16 * chunk.length);
  });

  it('credits received bytes back only once the reader takes them', async () => {
    const s = stream();
    s.received(new Uint8Array(64 * 1024));
    s.received(new Uint8Array(64 * 1024));
    expect(bytes('credit')).toBeLessThan(128 * 1024);
    let read = 0;
    s.on('data', (c: Buffer) => (read += c.length));
    await new Promise((resolve) => setImmediate(resolve));
    expect(read).toBe(128 * 1024);
    expect(bytes('credit')).toBe(128 * 1024);
  });

  it('passes half-close both ways and tells the worker when it is destroyed', async () => {
    const s = stream();
    const ended = new Promise((resolve) => s.once('end', resolve));
    s.resume();
    s.receivedEnd();
    await ended;
    s.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toContainEqual({ t: 'end', id: 7 });
    s.lost('peer gone');
    expect(sent).toContainEqual({ t: 'close', id: 7 });
  });
});
