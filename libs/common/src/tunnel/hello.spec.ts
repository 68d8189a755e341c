import { PassThrough } from 'node:stream';
import { TUNNEL_LIMITS } from './constants';
import { encodeHello, HelloRequest, parseHelloRequest, parseHelloResponse, readHello, TUNNEL_QUIC_STREAMS, UnsupportedHelloVersionError } from './hello';
import { TunnelProtocolError } from './tunnel-protocol.error';

const request: HelloRequest = { v: 1, api_key: 'svc_abc', runtime: { version: '0.1.0', boot_id: 'b1' } };

function lengthPrefixed(body: string): Buffer {
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(Buffer.byteLength(body), 0);
  return Buffer.concat([prefix, Buffer.from(body)]);
}

describe('hello codec', () => {
  const encoded = encodeHello(request);

  it.each(Array.from({ length: encoded.length + 1 }, (_, offset) => offset))(
    'reads a hello split at offset %i',
    async (offset) => {
      const socket = new PassThrough();
      const pending = readHello(socket);
      socket.write(encoded.subarray(0, offset));
      socket.write(encoded.subarray(offset));
      expect(await pending).toEqual(request);
    },
  );

  it('puts the bytes after the hello back on the socket, which stays paused', async () => {
    const socket = new PassThrough();
    socket.write(Buffer.concat([encoded, Buffer.from('PRI * HTTP/2.0')]));
    expect(await readHello(socket)).toEqual(request);
    expect(socket.isPaused()).toBe(true);
    expect(socket.read()?.toString()).toBe('PRI * HTTP/2.0');
  });

  it.each([
    ['an oversize length', () => Buffer.from([0, 0, 0x10, 1]), /exceeds/],
    ['a body that is not JSON', () => lengthPrefixed('{nope'), /not JSON/],
  ])('rejects %s', async (_name, bytes, message) => {
    const socket = new PassThrough();
    const pending = readHello(socket);
    socket.write(bytes());
    await expect(pending).rejects.toThrow(message);
  });

  it('rejects a socket closed before the hello is complete', async () => {
    const socket = new PassThrough();
    const pending = readHello(socket);
    socket.end(encoded.subarray(0, 6));
    await expect(pending).rejects.toThrow(/closed before hello/);
  });

  it('times out when no hello arrives', async () => {
    const socket = new PassThrough();
    await expect(readHello(socket, { timeoutMs: 10 })).rejects.toThrow(/not received in time/);
  });

  it('refuses to encode a hello over the limit', () => {
    const big = { ...request, api_key: 'x'.repeat(TUNNEL_LIMITS.helloMaxBytes) };
    expect(() => encodeHello(big)).toThrow(TunnelProtocolError);
  });

  it('tells another protocol version apart from a malformed hello', () => {
    expect(() => parseHelloRequest({ ...request, v: 2 })).toThrow(UnsupportedHelloVersionError);
    expect(() => parseHelloRequest({ ...request, api_key: 7 })).not.toThrow(UnsupportedHelloVersionError);
  });

  it.each([
    ['a valid hello', request, true],
    ['another version', { ...request, v: 2 }, false],
    ['no api_key', { v: 1, runtime: request.runtime }, false],
    ['an empty api_key', { ...request, api_key: '' }, false],
    ['no runtime', { v: 1, api_key: 'svc_x' }, false],
    ['a runtime without boot_id', { ...request, runtime: { version: '1' } }, false],
    ['an array', [request], false],
  ])('validates a hello request: %s', (_name, value, valid) => {
    if (valid) expect(parseHelloRequest(value)).toEqual(request);
    else expect(() => parseHelloRequest(value)).toThrow(TunnelProtocolError);
  });

  it.each([
    ['ok', { v: 1, ok: true, device_id: 'd1', heartbeat_secs: 10 }, true],
    ['refused', { v: 1, ok: false, error: 'unauthorized' }, true],
    ['ok without device_id', { v: 1, ok: true, heartbeat_secs: 10 }, false],
    ['ok with a zero heartbeat', { v: 1, ok: true, device_id: 'd1', heartbeat_secs: 0 }, false],
    ['refused without error', { v: 1, ok: false }, false],
    ['another version', { v: 9, ok: false, error: 'x' }, false],
  ])('validates a hello response: %s', (_name, value, valid) => {
    if (valid) expect(parseHelloResponse(value)).toEqual(value);
    else expect(() => parseHelloResponse(value)).toThrow(TunnelProtocolError);
  });

  it('keeps the QUIC per-operation streams offer only when it is exactly the known value', () => {
    const hello = { v: 1, api_key: 'svc_x', runtime: { version: '1', boot_id: 'b' } };
    expect(parseHelloRequest({ ...hello, streams: TUNNEL_QUIC_STREAMS }).streams).toBe(TUNNEL_QUIC_STREAMS);
    expect(parseHelloRequest({ ...hello, streams: 'http3' })).toEqual(hello);
    const answer = { v: 1, ok: true, device_id: 'd', heartbeat_secs: 10 };
    expect(parseHelloResponse({ ...answer, streams: TUNNEL_QUIC_STREAMS })).toEqual({ ...answer, streams: TUNNEL_QUIC_STREAMS });
    expect(parseHelloResponse({ ...answer, streams: 'other' })).toEqual(answer);
  });
});
