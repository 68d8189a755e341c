import { constants as http2Constants } from 'node:http2';
import { QuinnOperationStream } from '@svc/common';
import { streamPair } from '../../../../test/support/fake-quinn-stream';
import { OperationStream, QuicOperationStream } from './operation-stream';

/** The handlers' HTTP/2-shaped calls on a QUIC operation stream, seen from the server's end. */
describe('QuicOperationStream (the handlers’ stream on QUIC)', () => {
  function pair() {
    const wire = streamPair(3);
    const server = new QuinnOperationStream(wire.opener, 'server', 'opener');
    const device: OperationStream = new QuicOperationStream(wire.acceptor, 'device');
    device.on('error', () => undefined);
    return { wire, server, device };
  }

  it('answers respond() headers and, with waitForTrailers, the trailers sent on wantTrailers', async () => {
    const { server, device } = pair();
    device.respond({ ':status': 200, 'svc-size': 5 }, { waitForTrailers: true });
    expect(device.headersSent).toBe(true);
    device.once('wantTrailers', () => device.sendTrailers({ 'svc-sha256': 'abc' }));
    device.end('hello');
    expect(await server.readHead()).toMatchObject({ ':status': '200', 'svc-size': '5' });
    const trailers = new Promise((resolve) => server.once('trailers', resolve));
    const chunks: Buffer[] = [];
    for await (const chunk of server) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('hello');
    expect(await trailers).toEqual({ 'svc-sha256': 'abc' });
  });

  it('close(NO_ERROR) stops reading without a reset; any other code resets both ways', async () => {
    const first = pair();
    first.device.respond({ ':status': 200 });
    first.device.end('{}');
    first.device.close(http2Constants.NGHTTP2_NO_ERROR);
    await new Promise((resolve) => first.device.once('close', resolve));
    expect(first.wire.toAcceptor.stopped).toBe(true);
    expect(first.wire.toOpener.reset).toBe(false);
    expect(first.wire.toOpener.finished).toBe(true);

    const second = pair();
    second.device.respond({ ':status': 200 });
    second.device.close(http2Constants.NGHTTP2_PROTOCOL_ERROR);
    await new Promise((resolve) => second.device.once('close', resolve));
    expect(second.wire.toOpener.reset).toBe(true);
    expect(second.wire.toAcceptor.stopped).toBe(true);
  });

  it("emits 'aborted' when the server cancels it on the control stream", async () => {
    const { device } = pair();
    const aborted = new Promise((resolve) => device.once('aborted', resolve));
    (device as QuicOperationStream).cancelledByPeer();
    await aborted;
    expect(device.destroyed).toBe(true);
  });
});
