import { streamPair } from '../../../../test/support/fake-quinn-stream';
import { encodeFieldBlock, FIELD_BLOCK_MAX_BYTES } from './field-block';
import { QuinnOperationStream } from './operation-stream';

function collect(stream: QuinnOperationStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve, reject) => {
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('QuinnOperationStream', () => {
  const body = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));

  it.each([1, 3, 7, 1 << 20])('carries a header each way and a raw body, read %d bytes at a time', async (readSize) => {
    const pair = streamPair(readSize);
    const opener = new QuinnOperationStream(pair.opener, 'server', 'opener');
    const acceptor = new QuinnOperationStream(pair.acceptor, 'device', 'acceptor');
    opener.sendHead({ ':path': '/v1/forward/tcp', 'svc-args': 'e30' });
    opener.end(body);
    expect(await acceptor.readHead()).toEqual({ ':path': '/v1/forward/tcp', 'svc-args': 'e30' });
    expect(await collect(acceptor)).toEqual(body);
    acceptor.sendHead({ ':status': 200 });
    acceptor.end(body);
    expect(await opener.readHead()).toEqual({ ':status': '200' });
    expect(await collect(opener)).toEqual(body);
  });

  it('puts the body on the wire as it is when no trailers are announced (no framing on the data path)', async () => {
    const pair = streamPair();
    const opener = new QuinnOperationStream(pair.opener, 'server', 'opener');
    opener.sendHead({ ':path': '/v1/forward/tcp' });
    opener.write(body.subarray(0, 1000));
    opener.end(body.subarray(1000));
    await new Promise((resolve) => opener.once('finish', resolve));
    expect(Buffer.concat(pair.toAcceptor.chunks)).toEqual(Buffer.concat([encodeFieldBlock({ ':path': '/v1/forward/tcp' }), body]));
  });

  it.each([1, 5, 1 << 20])('ends a chunked body with trailers (upload), read %d bytes at a time', async (readSize) => {
    const pair = streamPair(readSize);
    const opener = new QuinnOperationStream(pair.opener, 'server', 'opener');
    const acceptor = new QuinnOperationStream(pair.acceptor, 'device', 'acceptor');
    opener.sendHead({ ':path': '/v1/fs/write' }, true);
    opener.write(body.subarray(0, 10));
    opener.write(Buffer.alloc(0));
    opener.write(body.subarray(10));
    opener.endWithTrailers({ 'svc-sha256': 'abc' });
    await acceptor.readHead();
    const trailers = new Promise((resolve) => acceptor.once('trailers', resolve));
    expect(await collect(acceptor)).toEqual(body);
    expect(await trailers).toEqual({ 'svc-sha256': 'abc' });
  });

  it("asks for the answer's trailers with 'wantTrailers' once the body ends (download)", async () => {
    const pair = streamPair(2);
    const opener = new QuinnOperationStream(pair.opener, 'server', 'opener');
    const acceptor = new QuinnOperationStream(pair.acceptor, 'device', 'acceptor');
    acceptor.sendHead({ ':status': 200 }, true);
    acceptor.once('wantTrailers', () => acceptor.sendTrailers({ 'svc-sha256': 'def' }));
    acceptor.end(body);
    const head = await opener.readHead();
    expect(head[':status']).toBe('200');
    const trailers = new Promise((resolve) => opener.once('trailers', resolve));
    expect(await collect(opener)).toEqual(body);
    expect(await trailers).toEqual({ 'svc-sha256': 'def' });
  });

  it("resets both directions on abort: the device's side hears 'aborted'", async () => {
    const pair = streamPair();
    const opener = new QuinnOperationStream(pair.opener, 'server', 'opener');
    const acceptor = new QuinnOperationStream(pair.acceptor, 'device', 'acceptor');
    acceptor.on('error', () => undefined);
    opener.sendHead({ ':path': '/v1/exec' });
    await acceptor.readHead();
    acceptor.resume();
    const aborted = new Promise((resolve) => acceptor.once('aborted', resolve));
    opener.reset();
    await aborted;
    expect(pair.toAcceptor.reset).toBe(true);
    expect(pair.toOpener.stopped).toBe(true);
  });

  it('tells the device the server left when only its writes fail (the request body had ended)', async () => {
    const pair = streamPair();
    const acceptor = new QuinnOperationStream(pair.acceptor, 'device', 'acceptor');
    acceptor.on('error', () => undefined);
    const aborted = new Promise((resolve) => acceptor.once('aborted', resolve));
    pair.toOpener.stopped = true;
    acceptor.sendHead({ ':status': 200 });
    acceptor.write('output');
    await aborted;
    expect(acceptor.destroyed).toBe(true);
  });

  it('lets the server read an answer to its end when the device stopped reading an upload early', async () => {
    const pair = streamPair();
    const opener = new QuinnOperationStream(pair.opener, 'server', 'opener');
    const acceptor = new QuinnOperationStream(pair.acceptor, 'device', 'acceptor');
    opener.sendHead({ ':path': '/v1/fs/write' }, true);
    opener.write(body);
    await acceptor.readHead();
    acceptor.sendHead({ ':status': 200 });
    acceptor.end('{"code":"INSUFFICIENT_STORAGE"}');
    acceptor.stopReading();
    await settle();
    opener.write(body); // fails under the hood: dropped, no error
    expect(await opener.readHead()).toEqual({ ':status': '200' });
    expect((await collect(opener)).toString()).toBe('{"code":"INSUFFICIENT_STORAGE"}');
    await settle();
    expect(opener.destroyed).toBe(true); // read to its end, nothing left to send: closed
  });

  it('refuses a header block larger than the limit before buffering it', async () => {
    const pair = streamPair();
    const acceptor = new QuinnOperationStream(pair.acceptor, 'device', 'acceptor');
    acceptor.on('error', () => undefined);
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(FIELD_BLOCK_MAX_BYTES + 1);
    pair.toAcceptor.chunks.push(prefix);
    await expect(acceptor.readHead()).rejects.toThrow(/exceeds/);
  });

  it('fails the header when the stream ends before it', async () => {
    const pair = streamPair();
    const acceptor = new QuinnOperationStream(pair.acceptor, 'device', 'acceptor');
    acceptor.on('error', () => undefined);
    pair.toAcceptor.chunks.push(Buffer.from([0, 0]));
    pair.toAcceptor.finished = true;
    await expect(acceptor.readHead()).rejects.toThrow(/before its header/);
  });
});
