import { PassThrough } from 'node:stream';
import { DeviceOfflineError, QuinnConnection, QuinnOperationStream, TUNNEL_OPS } from '@svc/common';
import { eventually } from '../../../../../test/fixtures/eventually';
import { streamPair } from '../../../../../test/support/fake-quinn-stream';
import { QuicTunnelSession } from './quic-tunnel-session';

/** A session over fake QUIC streams; `device` answers each operation stream as the runtime would. */
function session() {
  const devices: QuinnOperationStream[] = [];
  const aborted = jest.fn();
  const connection = {
    outboundStream: async () => {
      const pair = streamPair();
      devices.push(new QuinnOperationStream(pair.acceptor, 'server', 'acceptor'));
      return pair.opener;
    },
    abort: aborted,
  } as unknown as QuinnConnection;
  const tunnel = new QuicTunnelSession('dev-1', { version: '1.0.0', boot_id: 'b' }, '127.0.0.1', connection, new Promise(() => undefined), new PassThrough());
  const open = async () => {
    const opening = tunnel.openStream({ op: TUNNEL_OPS.exec, args: {}, requestId: 'r', actor: 'a' });
    await eventually('the device end of the operation stream', () => devices.length > 0, { intervalMs: 1 });
    const device = devices.shift()!;
    device.on('error', () => undefined);
    await device.readHead();
    device.sendHead({ ':status': 200 });
    const stream = await opening;
    stream.body.resume();
    return { stream, device };
  };
  return { tunnel, open, aborted };
}

describe('QuicTunnelSession.close', () => {
  it('with drain, lets the streams in flight finish with their answers and cuts once the last one closed', async () => {
    const { tunnel, open, aborted } = session();
    const { stream, device } = await open();
    void tunnel.close('replaced by a new connection', { drain: true });
    await expect(tunnel.openStream({ op: TUNNEL_OPS.exec, args: {}, requestId: 'r2', actor: 'a' })).rejects.toBeInstanceOf(DeviceOfflineError);

    const body: Buffer[] = [];
    stream.body.on('data', (chunk: Buffer) => body.push(chunk));
    device.end('done\n');
    stream.body.end();
    await new Promise((resolve) => stream.body.once('close', resolve));
    expect(Buffer.concat(body).toString()).toBe('done\n');
    expect(tunnel.openStreams).toBe(0);
    // The runtime gets its grace to read the close message and hang up itself, then the cut.
    await eventually('the connection cut', () => aborted.mock.calls.length > 0, { intervalMs: 1 });
  });

  it('closed again without drain while draining (revocation, shutdown), cuts at once', async () => {
    const { tunnel, open, aborted } = session();
    const { stream } = await open();
    void tunnel.close('replaced by a new connection', { drain: true });
    expect(aborted).not.toHaveBeenCalled();
    void tunnel.close('server shutting down');
    expect(aborted).toHaveBeenCalledTimes(1);
    await new Promise((resolve) => stream.body.once('close', resolve));
    expect(tunnel.openStreams).toBe(0);
  });

  it('without drain, resets the streams in flight at once', async () => {
    const { tunnel, open } = session();
    const { stream } = await open();
    void tunnel.close('device revoked');
    await new Promise((resolve) => stream.body.once('close', resolve));
    expect(tunnel.openStreams).toBe(0);
  });
});
