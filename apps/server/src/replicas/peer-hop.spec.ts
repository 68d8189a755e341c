import { constants } from 'node:http2';
import type { ServerConfig } from '../config/server-config';
import { ServerMetrics } from '../common/server-metrics';
import { REFUSED_MESSAGE, tunnelToStandIn } from '../relay/tcp/stand-in-device.spec-helper';
import type { TunnelRegistry } from '../relay/tunnel-registry.service';
import { PeerConnections } from './peer-connections';
import { peerKey } from './peer-key';
import { PeerListener } from './peer-listener';
import { PeerTunnelSession } from './peer-tunnel-session';

const SECRET = Buffer.from('peer-hop-spec-secret');

/**
 * The hop between replicas, for real: a PeerTunnelSession on the replica the user called, the
 * holder's PeerListener, and the holder's H2TunnelSession to a tiny HTTP/2 server standing in for
 * the runtime, which ends each new stream with `code` before any headers.
 */
async function hopTo(code: number) {
  const { tunnel, stop: stopTunnel } = await tunnelToStandIn((stream) => stream.close(code));
  const registry = { requireForPeer: () => tunnel } as unknown as TunnelRegistry;
  const config = { serverSecret: SECRET, listenHost: '127.0.0.1', replicas: { peerPort: 0 } } as unknown as ServerConfig;
  const listener = new PeerListener(config, registry);
  await listener.onApplicationBootstrap();
  const connections = new PeerConnections(peerKey(SECRET));
  const hop = new PeerTunnelSession('dev-1', 'tcp', `127.0.0.1:${listener.port}`, connections, new ServerMetrics());
  const open = () => hop.openStream({ op: 'exec', args: { command: ['true'] }, requestId: 'r1', actor: 'a@b.test' });
  const stop = async (cutFirst = false) => {
    // The listener's graceful close first, unless `cutFirst`: then this replica's connection is
    // destroyed (with an error) while the refused stream is still closing.
    if (cutFirst) connections.close();
    await listener.onApplicationShutdown();
    connections.close();
    await stopTunnel();
  };
  return { open, stop };
}

describe('peer hop: a stream the device refuses on the holder', () => {
  it("stays RATE_LIMITED (429) with the holder's message when the device's tunnel refuses it (ENHANCE_YOUR_CALM)", async () => {
    const { open, stop } = await hopTo(constants.NGHTTP2_ENHANCE_YOUR_CALM);
    try {
      await expect(open()).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429, message: REFUSED_MESSAGE });
    } finally {
      await stop();
    }
  });

  it('stays DEVICE_OFFLINE (503) when the device resets it with INTERNAL_ERROR', async () => {
    const { open, stop } = await hopTo(constants.NGHTTP2_INTERNAL_ERROR);
    try {
      await expect(open()).rejects.toMatchObject({ code: 'DEVICE_OFFLINE', status: 503 });
    } finally {
      await stop();
    }
  });

  it('lets this replica shut down at once after a refusal: the refused stream\'s late error is handled', async () => {
    const { open, stop } = await hopTo(constants.NGHTTP2_ENHANCE_YOUR_CALM);
    await expect(open()).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    const uncaught: Error[] = [];
    const onUncaught = (err: Error) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      await stop(true);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
  });
});
