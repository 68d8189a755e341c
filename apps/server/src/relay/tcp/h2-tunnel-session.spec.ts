import { constants, ServerHttp2Stream } from 'node:http2';
import { REFUSED_MESSAGE, tunnelToStandIn } from './stand-in-device.spec-helper';

async function tunnelTo(answer: (stream: ServerHttp2Stream) => void) {
  const { tunnel, stop } = await tunnelToStandIn(answer);
  const open = () => tunnel.openStream({ op: 'exec', args: { command: ['true'] }, requestId: 'r1', actor: 'a@b.test' });
  return { open, stop };
}

describe('H2TunnelSession: a stream that ends before the device answers', () => {
  it.each([
    ['ENHANCE_YOUR_CALM (its session memory is full)', constants.NGHTTP2_ENHANCE_YOUR_CALM],
    ['REFUSED_STREAM (past its concurrent streams)', constants.NGHTTP2_REFUSED_STREAM],
  ])('is RATE_LIMITED (429) when the device refuses it with %s while the tunnel stays up', async (_name, code) => {
    const { open, stop } = await tunnelTo((stream) => stream.close(code));
    try {
      await expect(open()).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429, message: REFUSED_MESSAGE });
    } finally {
      await stop();
    }
  });

  it('opens the next stream after a refusal: the tunnel stayed up', async () => {
    let refuseNext = true;
    const { open, stop } = await tunnelTo((stream) => {
      if (refuseNext) {
        refuseNext = false;
        stream.close(constants.NGHTTP2_ENHANCE_YOUR_CALM);
      } else {
        stream.respond({ ':status': 200 });
        stream.end();
      }
    });
    try {
      await expect(open()).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      const opened = await open();
      expect(opened.headers[':status']).toBe(200);
      opened.abort();
    } finally {
      await stop();
    }
  });

  it.each([
    ['CANCEL', constants.NGHTTP2_CANCEL],
    ['INTERNAL_ERROR', constants.NGHTTP2_INTERNAL_ERROR],
  ])('is DEVICE_OFFLINE (503) when the device resets it with %s', async (_name, code) => {
    const { open, stop } = await tunnelTo((stream) => stream.close(code));
    try {
      await expect(open()).rejects.toMatchObject({ code: 'DEVICE_OFFLINE', status: 503, message: 'Device is offline' });
    } finally {
      await stop();
    }
  });

  it('is DEVICE_OFFLINE when the device ends the whole session with GOAWAY(ENHANCE_YOUR_CALM): its streams carry that code too', async () => {
    const { open, stop } = await tunnelTo((stream) => stream.session?.goaway(constants.NGHTTP2_ENHANCE_YOUR_CALM, 0));
    try {
      await expect(open()).rejects.toMatchObject({ code: 'DEVICE_OFFLINE' });
    } finally {
      await stop();
    }
  });
});
