import { performance } from 'node:perf_hooks';
import type { TLSSocket } from 'node:tls';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { HelloRequest, TUNNEL_ALPN, TUNNEL_LIMITS } from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import type { TunnelAcceptor, TunnelAdmission, TunnelCarrier, TunnelSession } from './tunnel-carrier';
import { loadTunnelCertificate, TunnelCertificate } from './tunnel-certificate';
import { QuicCarrier, QuicPortInUseError } from './quic/quic.carrier';
import { AnnouncedQuicIdentity, quicIdentity } from './quic/quic-identity';
import { TlsTcpCarrier } from './tcp/tls-tcp.carrier';
import { TunnelRegistry } from './tunnel-registry.service';
import { ClientStreamAcceptor, RevocationFeed, TunnelCredentials } from './tunnel-ports';
import { RELAY_OPTIONS, RelayOptions } from './relay.options';

/** An admission older than this is refused outright: its key check may predate a revocation we no longer remember. */
const ADMISSION_MAX_AGE_MS = 60_000;
/** UNIFIED_PORT=0: how many ephemeral TCP ports to try before giving up finding the same one free on UDP. */
const EPHEMERAL_PORT_ATTEMPTS = 5;

export interface TunnelEndpoint {
  port: number;
  /** Carriers listening on `port`, preferred first: `quic` (udp) when enabled, `tcp` always. */
  transports: TunnelCarrier['name'][];
  alpn: string[];
  certificateSha256: string;
  caFile: string;
  /** The QUIC server's key and the tunnel certificate's signature over it; absent without QUIC. */
  quic?: AnnouncedQuicIdentity;
}

/**
 * Starts the carriers on UNIFIED_PORT, authenticates runtimes' hellos (API key → device, through
 * the TunnelCredentials port), hands sessions to the registry, and closes a device's tunnel the moment
 * its key is revoked, including a revocation that lands while that device's key is being checked.
 */
@Injectable()
export class RelayService implements TunnelAcceptor, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  readonly heartbeatSecs = TUNNEL_LIMITS.heartbeatSecs;
  private readonly carriers: TunnelCarrier[] = [];
  private endpointInfo: TunnelEndpoint | null = null;
  /** Counts revocations; device id → {mark, at} of its last one, kept ADMISSION_MAX_AGE_MS. */
  private revocationCount = 0;
  private readonly recentRevocations = new Map<string, { mark: number; at: number }>();
  private readonly logger = new Logger('Relay');

  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(RELAY_OPTIONS) private readonly options: RelayOptions,
    private readonly registry: TunnelRegistry,
    private readonly credentials: TunnelCredentials,
    revocations: RevocationFeed,
    /** Absent in unit specs: then UNIFIED_PORT serves runtimes only. */
    @Optional() private readonly clientStreams?: ClientStreamAcceptor,
  ) {
    revocations.onRevoked((deviceId) => this.revoked(deviceId));
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.listen) return;
    const certificate = await loadTunnelCertificate(this.config);
    const gateway = this.clientStreams;
    const clients = gateway && { alpn: gateway.alpn, accept: (socket: TLSSocket) => gateway.accept(socket) };
    const { listenHost: host, unifiedPort, quic, connections } = this.config;
    const { handshakeTimeoutMs } = connections;
    for (let attempt = 1; ; attempt++) {
      const tcp = new TlsTcpCarrier({ host, port: unifiedPort, cert: certificate.cert, key: certificate.key, clients, handshakeTimeoutMs, caps: connections.caps });
      const { port } = await tcp.start(this);
      this.carriers.push(tcp);
      let quicAnnounced: AnnouncedQuicIdentity | undefined;
      if (quic) {
        // Same port number on UDP; with UNIFIED_PORT=0 that UDP port may be taken: try another.
        const { identity, announced } = quicIdentity(certificate);
        const udp = new QuicCarrier({ host, port, identity, handshakeTimeoutMs, caps: connections.caps });
        try {
          await udp.start(this);
          this.carriers.push(udp);
          quicAnnounced = announced;
        } catch (err) {
          if (!(err instanceof QuicPortInUseError)) {
            // QUIC is an optimisation (e.g. no prebuilt quiche for this platform): runtimes fall back to TCP.
            this.logger.error(`QUIC carrier unavailable, serving TLS over TCP only (TUNNEL_QUIC=false silences this): ${(err as Error).message}`);
          } else {
            await Promise.all(this.carriers.splice(0).map((carrier) => carrier.close()));
            if (unifiedPort === 0 && attempt < EPHEMERAL_PORT_ATTEMPTS) continue;
            throw err;
          }
        }
      }
      this.endpointInfo = { port, transports: this.carriers.map((carrier) => carrier.name).reverse(), alpn: [TUNNEL_ALPN], certificateSha256: certificate.sha256, caFile: certificate.certFile, quic: quicAnnounced };
      this.logCertificate(certificate, port);
      return;
    }
  }

  /**
   * Runtimes hear why (GOAWAY) before the carriers stop, so they log it and reconnect at once;
   * a replica spreads the closes over DRAIN_SECS, so its runtimes do not all move in one instant.
   * Before the REST server stops: it waits for its requests, and a job log followed or an exec
   * streamed from a device here ends only when that device's tunnel does.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.registry.closeAll('server shutting down', this.config.replicas?.drainMs ?? 0);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.carriers.splice(0).map((carrier) => carrier.close()));
  }

  /** Where runtimes connect and how they trust it; null when this process does not listen. */
  endpoint(): TunnelEndpoint | null {
    return this.endpointInfo;
  }

  async authenticate(hello: HelloRequest): Promise<TunnelAdmission | null> {
    const startedAt = performance.now();
    const revocationMark = this.revocationCount;
    const deviceId = await this.credentials.deviceIdForKey(hello.api_key);
    return deviceId ? { deviceId, startedAt, revocationMark } : null;
  }

  accepted(session: TunnelSession, admission: TunnelAdmission): void {
    const revocation = this.recentRevocations.get(admission.deviceId);
    const stale = performance.now() - admission.startedAt > ADMISSION_MAX_AGE_MS;
    if (stale || (revocation !== undefined && revocation.mark > admission.revocationMark)) {
      void session.close('device revoked while its key was checked');
      return;
    }
    this.registry.register(session);
  }

  private revoked(deviceId: string): void {
    const now = performance.now();
    for (const [id, { at }] of this.recentRevocations) if (now - at > ADMISSION_MAX_AGE_MS) this.recentRevocations.delete(id);
    this.recentRevocations.set(deviceId, { mark: ++this.revocationCount, at: now });
    this.registry.revoke(deviceId);
  }

  private logCertificate(certificate: TunnelCertificate, port: number): void {
    const origin = certificate.generated ? 'generated a self-signed (staging) certificate' : 'using certificate';
    const udp = this.endpointInfo?.transports.includes('quic') ? ` and ${port}/udp (QUIC)` : ' (no QUIC)';
    this.logger.log(`tunnel listener on ${this.config.listenHost}:${port}/tcp${udp} (ALPN ${TUNNEL_ALPN}; clients ${this.clientStreams?.alpn ?? 'none'}); ${origin} ${certificate.certFile}`);
    this.logger.log(`tunnel certificate SHA-256 fingerprint: ${certificate.sha256} (runtimes: --pin sha256:${certificate.sha256} or --ca ${certificate.certFile})`);
  }
}
