import { Logger } from '@nestjs/common';
import { connect, type NatsConnection } from 'nats';
import type { ReplicasConfig } from '../config/server-config';
import { NatsReplicaEvents } from './nats-replica-events';
import { NatsTunnelDirectory } from './nats-tunnel-directory';
import { NatsPeerSessions } from './nats-peer-sessions';
import { PeerConnections } from './peer-connections';
import { peerKey } from './peer-key';
import type { ServerMetrics } from '../common/server-metrics';

/**
 * This replica's connection to NATS and what lives on it: the shared tunnel directory (and its
 * heartbeat), the events between replicas, and the peer hop's outgoing connections. Started before the application takes traffic, so the directory's copy is complete
 * when the first listing asks; closed after the tunnels (ReplicaShutdown), withdrawing this
 * replica's heartbeat.
 */
export class ReplicaBus {
  private readonly logger = new Logger('Replicas');

  private constructor(
    readonly nc: NatsConnection,
    readonly directory: NatsTunnelDirectory,
    readonly events: NatsReplicaEvents,
    readonly peers: NatsPeerSessions,
    private readonly connections: PeerConnections,
    private readonly metrics: ServerMetrics,
  ) {}

  static async start(config: ReplicasConfig, replicaId: string, serverSecret: Buffer, metrics: ServerMetrics): Promise<ReplicaBus> {
    let nc: NatsConnection;
    try {
      // Once connected, the client reconnects on its own for as long as it takes.
      nc = await connect({ servers: config.natsUrl, name: `svc-server ${replicaId}`, maxReconnectAttempts: -1, reconnectTimeWait: 1_000 });
    } catch (err) {
      throw new Error(`NATS_URL: cannot connect to ${redacted(config.natsUrl)}: ${(err as Error).message}`);
    }
    try {
      const directory = await NatsTunnelDirectory.open(nc, { replicaId, peerAddress: config.peerAddress });
      const connections = new PeerConnections(peerKey(serverSecret));
      const bus = new ReplicaBus(nc, directory, new NatsReplicaEvents(nc, replicaId), new NatsPeerSessions(directory, connections, metrics), connections, metrics);
      metrics.natsConnected.set(1);
      bus.logger.log(`replica ${replicaId} on NATS ${redacted(config.natsUrl)}; peers dial ${config.peerAddress}`);
      void bus.reportStatus();
      return bus;
    } catch (err) {
      await nc.close();
      throw new Error(`NATS_URL: ${redacted(config.natsUrl)} has no usable JetStream (start nats-server with -js): ${(err as Error).message}`);
    }
  }

  /** Cuts the streams this replica relays through the others (shutdown, before the REST server waits for its requests). */
  closePeerHop(): void {
    this.connections.close();
  }

  async close(): Promise<void> {
    this.connections.close();
    this.events.close();
    await this.directory.close();
    await this.nc.drain().catch(() => undefined);
  }

  private async reportStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') {
        this.metrics.natsConnected.set(0);
        this.logger.warn(`NATS connection lost (${String(status.data)}); reconnecting`);
      } else if (status.type === 'reconnect') {
        this.metrics.natsConnected.set(1);
        this.logger.log(`NATS connection back (${String(status.data)})`);
      }
    }
  }
}

/** The URL without its credentials, for logs and errors. */
function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
