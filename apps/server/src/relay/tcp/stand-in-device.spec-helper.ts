import { AddressInfo } from 'node:net';
import { connect, createServer, Http2Server, ServerHttp2Stream } from 'node:http2';
import { H2TunnelSession } from './h2-tunnel-session';

/** What H2TunnelSession rejects a stream with when the device's tunnel refused it while up. */
export const REFUSED_MESSAGE = 'Device dev-1 refused a new operation: too many in flight on its tunnel; try again shortly';

/**
 * A real H2TunnelSession of device `dev-1` over a real HTTP/2 connection to a tiny server standing
 * in for the runtime, which answers each new stream as `answer` says.
 */
export async function tunnelToStandIn(answer: (stream: ServerHttp2Stream) => void): Promise<{ tunnel: H2TunnelSession; stop(): Promise<void> }> {
  const device: Http2Server = createServer();
  device.on('stream', (stream) => {
    stream.on('error', () => undefined); // its own reset
    answer(stream);
  });
  await new Promise<void>((resolve) => device.listen(0, '127.0.0.1', resolve));
  const session = connect(`http://127.0.0.1:${(device.address() as AddressInfo).port}`);
  session.on('error', () => undefined); // a device's GOAWAY with an error code; the tunnel session reads it
  await new Promise((resolve) => session.once('remoteSettings', resolve));
  const tunnel = new H2TunnelSession('dev-1', { version: 'test', boot_id: 'b' }, '127.0.0.1', session, 60);
  const stop = async () => {
    await tunnel.close('test over');
    await new Promise((resolve) => device.close(resolve));
  };
  return { tunnel, stop };
}
