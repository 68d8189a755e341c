import type { TunnelSession } from '../relay/tunnel-carrier';
import { PeerSessions } from '../relay/tunnel-ports';
import type { NatsTunnelDirectory } from './nats-tunnel-directory';
import type { PeerConnections } from './peer-connections';
import type { ServerMetrics } from '../common/server-metrics';
import { PeerTunnelSession } from './peer-tunnel-session';

/** The peer hop's way in: the directory's copy names the live replica holding the device. */
export class NatsPeerSessions extends PeerSessions {
  constructor(
    private readonly directory: NatsTunnelDirectory,
    private readonly connections: PeerConnections,
    private readonly metrics: ServerMetrics,
  ) {
    super();
  }

  sessionFor(deviceId: string): TunnelSession | undefined {
    const holding = this.directory.peerHolding(deviceId);
    return holding ? new PeerTunnelSession(deviceId, holding.carrier, holding.peerAddress, this.connections, this.metrics) : undefined;
  }
}
