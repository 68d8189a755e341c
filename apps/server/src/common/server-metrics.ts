import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** How a stream reached the device: this process's tunnel, a hop through the holding replica, or for a peer that hopped here. */
export type StreamRoute = 'local' | 'peer' | 'for_peer';
export type StreamDirection = 'to_device' | 'from_device';
export type PeerHopOutcome = 'opened' | 'refused' | 'offline';

type TunnelCounts = Iterable<[carrier: string, count: number]>;

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * The server's Prometheus metrics (GET /metrics), one registry per application. Each fact is
 * counted where it already happens: the tunnel registry (tunnels, streams, bytes, exec time), the
 * peer session (peer hops), the replica bus (NATS), deployment reports; gauges that are states
 * (tunnels, pending registrations) are read from their owner when scraped.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  private tunnelSource: { replica: string; counts: () => TunnelCounts } | null = null;
  private pendingSource: (() => Promise<number>) | null = null;

  readonly streams = new Counter({
    name: 'svc_streams_total',
    help: 'Operation streams opened toward devices, by operation and route (local tunnel, peer hop, for a peer).',
    labelNames: ['op', 'route'] as const,
    registers: [this.registry],
  });

  readonly bytes = new Counter({
    name: 'svc_stream_bytes_total',
    help: 'Bytes relayed on operation streams, by direction and route.',
    labelNames: ['direction', 'route'] as const,
    registers: [this.registry],
  });

  readonly execDuration = new Histogram({
    name: 'svc_exec_duration_seconds',
    help: 'device_exec from the stream request until its stream ended, by route.',
    labelNames: ['route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly peerHops = new Counter({
    name: 'svc_peer_hops_total',
    help: 'Streams opened through the replica holding the device, by outcome (opened, refused by the device, offline: the holder did not answer or no longer holds it).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly peerHopOpen = new Histogram({
    name: 'svc_peer_hop_open_seconds',
    help: "Time until the holding replica answered a stream's opening.",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly natsConnected = new Gauge({
    name: 'svc_nats_connected',
    help: '1 while this replica is connected to NATS, 0 while it reconnects (absent without NATS_URL).',
    registers: [this.registry],
  });

  readonly deploymentReports = new Counter({
    name: 'svc_deployment_reports_total',
    help: 'Deployment status reports received from devices, by status and whether they were kept (false: on a deployment the device does not have).',
    labelNames: ['status', 'kept'] as const,
    registers: [this.registry],
  });

  constructor() {
    const metrics = this;
    new Gauge({
      name: 'svc_tunnels',
      help: 'Device tunnels held by this replica, by carrier.',
      labelNames: ['carrier', 'replica'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        const source = metrics.tunnelSource;
        if (source) for (const [carrier, count] of source.counts()) this.set({ carrier, replica: source.replica }, count);
      },
    });
    new Gauge({
      name: 'svc_registrations_pending',
      help: 'Registration requests waiting for approval (not expired).',
      registers: [this.registry],
      async collect() {
        if (metrics.pendingSource) this.set(await metrics.pendingSource());
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** The tunnel registry tells how to count the tunnels it holds. */
  observeTunnels(replica: string, counts: () => TunnelCounts): void {
    this.tunnelSource = { replica, counts };
  }

  /** The registrations feature tells how to count the pending requests. */
  observeRegistrationsPending(count: () => Promise<number>): void {
    this.pendingSource = count;
  }
}
