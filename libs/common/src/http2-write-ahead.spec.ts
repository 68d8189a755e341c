import { once } from 'node:events';
import { createServer, Server, Socket } from 'node:net';
import { WriteAheadSocket } from './http2-write-ahead';

/** A connected pair of loopback sockets: `near` is ours, `far` the peer's. */
async function socketPair(server: Server): Promise<{ near: Socket; far: Socket }> {
  const accepted = once(server, 'connection');
  const near = new Socket({ allowHalfOpen: true }).connect((server.address() as { port: number }).port, '127.0.0.1');
  await once(near, 'connect');
  const [far] = (await accepted) as [Socket];
  return { near, far };
}

function written(stream: WriteAheadSocket, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => stream.write(chunk, (err) => (err ? reject(err) : resolve())));
}

describe('WriteAheadSocket', () => {
  let server: Server;
  beforeAll(async () => {
    server = createServer({ allowHalfOpen: true, pauseOnConnect: true });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('completes a write at once while the socket holds less than its limit, though the peer reads nothing', async () => {
    const { near, far } = await socketPair(server);
    const ahead = new WriteAheadSocket(near, 64 * 1024 * 1024);
    // 32 MiB: far more than the kernel buffers between two sockets whose peer does not read.
    for (let i = 0; i < 32; i++) await written(ahead, Buffer.alloc(1024 * 1024, i));
    expect(near.writableLength).toBeGreaterThan(0);
    let received = 0;
    far.on('data', (chunk: Buffer) => (received += chunk.length));
    far.resume();
    while (received < 32 * 1024 * 1024) await new Promise((resolve) => setTimeout(resolve, 20));
    ahead.destroy();
    far.destroy();
  });

  it('holds a write back once the socket holds its limit, until the socket drained', async () => {
    const { near, far } = await socketPair(server);
    const ahead = new WriteAheadSocket(near, 1024 * 1024);
    let done = false;
    const big = written(ahead, Buffer.alloc(8 * 1024 * 1024)).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(done).toBe(false);
    far.resume();
    await big;
    ahead.destroy();
    far.destroy();
  });

  it('passes what the peer sends, its end, and its own end through', async () => {
    const { near, far } = await socketPair(server);
    const ahead = new WriteAheadSocket(near);
    far.resume();
    far.end('hello from the peer');
    const chunks: Buffer[] = [];
    ahead.on('data', (chunk: Buffer) => chunks.push(chunk));
    await once(ahead, 'end');
    expect(Buffer.concat(chunks).toString()).toBe('hello from the peer');
    const farEnded = once(far, 'end');
    ahead.end();
    await farEnded;
    far.destroy();
  });
});
