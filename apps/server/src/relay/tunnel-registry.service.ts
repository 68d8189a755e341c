import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DeviceOfflineError } from '@svc/common';
import { Clock } from '../common/clock';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import type { TunnelSession } from './tunnel-carrier';
import { TunnelDirectory } from './tunnel-directory';
import { PeerSessions, type TunnelPresenceListener } from './tunnel-ports';
import { ServerMetrics, type StreamRoute } from '../common/server-metrics';
import { MeteredSession } from './metered-session';

/**
 * The tunnels this process holds: device id → live session. Registering a device that already has
 * a session replaces it atomically: the new session is in place before the old one is closed, so
 * no request ever finds the device without a tunnel, and the old session's close does not mark
 * the device lost. The old session drains: new streams go to the new one, those in flight finish. The directory learns about every change so other replicas can find the device.
 */
@Injectable()
export class TunnelRegistry {
  /** Names this process in the tunnel directory (REPLICA_ID). */
  readonly holder: string;
  private readonly live = new Map<string, TunnelSession>();
  /** Replaced sessions whose streams in flight are still finishing: revocation and shutdown cut them. */
  private readonly draining = new Set<TunnelSession>();
  private readonly registeredAt = new WeakMap<TunnelSession, Date>();
  private readonly registeredListeners: ((session: TunnelSession) => void)[] = [];
  private readonly presenceListeners: TunnelPresenceListener[] = [];
  private readonly logger = new Logger('TunnelRegistry');
  /** Set by closeAll: each tunnel's own "tunnel down" line is then debug, and one line sums them up. */
  private closingAll = false;

  constructor(
    private readonly directory: TunnelDirectory,
    private readonly clock: Clock,
    @Optional() @Inject(SERVER_CONFIG) config?: ServerConfig,
    /** Null when this process is alone (the tunnel state's ports); absent in unit specs. */
    @Inject(PeerSessions) private readonly peers: PeerSessions | null = null,
    @Optional() private readonly metrics?: ServerMetrics,
  ) {
    this.holder = config?.replicaId ?? randomUUID();
    directory.onTakenOver((deviceId, holder, since) => this.takenOver(deviceId, holder, since));
    metrics?.observeTunnels(this.holder, () => this.countByCarrier());
  }

  register(session: TunnelSession): void {
    if (this.closingAll) {
      void session.close('server shutting down');
      return;
    }
    const { deviceId } = session;
    const previous = this.live.get(deviceId);
    this.live.set(deviceId, session);
    session.onClosed((reason) => this.closed(session, reason));
    const link = { carrier: session.carrier, ...(session.runtime.carrier_note === undefined ? {} : { carrierNote: session.runtime.carrier_note }) };
    const now = this.clock.now();
    this.registeredAt.set(session, now);
    this.report(this.directory.connected(deviceId, this.holder, now, link));
    for (const listener of this.presenceListeners) listener.connected(deviceId, previous !== undefined);
    this.logger.log(`tunnel up: device ${deviceId} via ${session.carrier} from ${session.remoteAddress} (runtime ${session.runtime.version})`);
    for (const listener of this.registeredListeners) {
      try {
        listener(session);
      } catch (err) {
        this.logger.error(`a listener of new tunnels failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    // Drained, not cut: what the old tunnel still carries (a listing, an exec) ends with its answer.
    if (previous) {
      this.draining.add(previous);
      void previous.close('replaced by a new connection', { drain: true }).finally(() => this.draining.delete(previous));
    }
  }

  /** Told of every device whose tunnel comes up on, or leaves, this process (devices' last-seen time). */
  onPresence(listener: TunnelPresenceListener): void {
    this.presenceListeners.push(listener);
  }

  /** Runs for every session this process registers, once it is live (the deployment channel opens then). */
  onRegistered(listener: (session: TunnelSession) => void): void {
    this.registeredListeners.push(listener);
  }

  /** The live session of a device held by this process. */
  sessionOf(deviceId: string): TunnelSession | undefined {
    return this.live.get(deviceId);
  }

  /**
   * What every operation asks before opening a stream: this process's live session, else one
   * through the replica that holds the device (peer hop), else DEVICE_OFFLINE.
   */
  require(deviceId: string): TunnelSession {
    const local = this.live.get(deviceId);
    const session = local ?? this.peers?.sessionFor(deviceId);
    if (!session) throw new DeviceOfflineError();
    return this.metered(session, local ? 'local' : 'peer');
  }

  /** The live session of a device held here, for a stream another replica relays (the peer listener); DEVICE_OFFLINE without one. */
  requireForPeer(deviceId: string): TunnelSession {
    const session = this.live.get(deviceId);
    if (!session) throw new DeviceOfflineError();
    return this.metered(session, 'for_peer');
  }

  /** The device's key was revoked (rejected, removed, re-keyed): drop its tunnel now. */
  revoke(deviceId: string): void {
    const session = this.live.get(deviceId);
    this.live.delete(deviceId);
    this.report(this.directory.forget(deviceId));
    if (session) for (const listener of this.presenceListeners) listener.disconnected(deviceId);
    void session?.close('device revoked');
    for (const replaced of this.draining) if (replaced.deviceId === deviceId) void replaced.close('device revoked');
  }

  /**
   * Closes every tunnel (server shutdown), spread evenly over `spreadMs` (0: at once), so their
   * runtimes do not all reconnect elsewhere in the same instant; from now on a tunnel that comes
   * up here is closed at once. Resolves once their connections are gone.
   */
  async closeAll(reason: string, spreadMs = 0): Promise<void> {
    this.closingAll = true;
    const sessions = [...this.live.values()];
    const startedAt = Date.now();
    const gapMs = sessions.length > 1 ? spreadMs / (sessions.length - 1) : 0;
    await Promise.all([
      ...[...this.draining].map((replaced) => replaced.close(reason)),
      ...sessions.map((session, i) => (i === 0 || gapMs === 0 ? session.close(reason) : delay(i * gapMs).then(() => session.close(reason)))),
    ]);
    this.logger.log(`closed ${sessions.length} tunnel(s) (${reason}) in ${Date.now() - startedAt} ms`);
  }

  get size(): number {
    return this.live.size;
  }

  private metered(session: TunnelSession, route: StreamRoute): TunnelSession {
    return this.metrics ? new MeteredSession(session, route, this.metrics) : session;
  }

  private countByCarrier(): Map<string, number> {
    const counts = new Map<string, number>([['tcp', 0], ['quic', 0]]);
    for (const session of this.live.values()) counts.set(session.carrier, (counts.get(session.carrier) ?? 0) + 1);
    return counts;
  }

  private closed(session: TunnelSession, reason: string): void {
    if (this.live.get(session.deviceId) !== session) return;
    this.live.delete(session.deviceId);
    this.report(this.directory.lost(session.deviceId, this.holder, this.clock.now()));
    for (const listener of this.presenceListeners) listener.disconnected(session.deviceId);
    const line = `tunnel down: device ${session.deviceId} (${reason})`;
    if (this.closingAll) this.logger.debug(line);
    else this.logger.log(line);
  }

  /**
   * The device's runtime connected to another replica at `since`: a tunnel held here from before
   * then is stale (e.g. half-open). One registered here later is newer and stays.
   */
  private takenOver(deviceId: string, holder: string, since: Date): void {
    const session = this.live.get(deviceId);
    if (!session || holder === this.holder || since <= this.registeredAt.get(session)!) return;
    this.logger.log(`device ${deviceId} is now held by replica ${holder}: closing the tunnel held here`);
    void session.close('the device connected to another replica');
  }

  private report(work: Promise<void>): void {
    work.catch((err: unknown) => this.logger.error(`tunnel directory update failed: ${err instanceof Error ? err.message : String(err)}`));
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
