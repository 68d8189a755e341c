import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_STREAM_RESET, RateLimitedError } from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { BearerAuthenticator } from '../authentication/bearer-authenticator';
import type { UserPrincipal } from '../auth/principal';
import { EventJournal, RESET } from './event-journal';
import { EventSink, EventStreamConnection, formatEvent } from './event-stream-connection';
import { EventVisibility } from './event-visibility';
import type { FleetEvent } from './fleet-event';

/** Milliseconds the client waits before reconnecting (the stream's `retry:` line). */
export const RECONNECT_MS = 3_000;
const HEARTBEAT_MS = 15_000;
const LIMITS = { stallMs: 2 * HEARTBEAT_MS, heartbeatMs: HEARTBEAT_MS, reauthenticateMs: 60_000 };

export interface OpenStream {
  principal: UserPrincipal;
  /** `Bearer …` as the caller sent it: asked again while the stream lasts. */
  authorization: string;
  lastEventId: string | undefined;
  sink: EventSink;
  /** Sends the answer's status and headers, once the stream is admitted. */
  begin(): void;
  /** Called when the client goes away. */
  onClientGone(listener: () => void): void;
}

/**
 * The open event streams of this replica: at most EVENTS_MAX_STREAMS_PER_USER per user, each
 * following EventJournal from where its client left off (Last-Event-ID), or from now.
 */
@Injectable()
export class EventStreams implements BeforeApplicationShutdown {
  private readonly byUser = new Map<string, Set<EventStreamConnection>>();
  private readonly unsubscribers = new WeakMap<EventStreamConnection, () => void>();
  private readonly logger = new Logger('EventStreams');

  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly journal: EventJournal,
    private readonly visibility: EventVisibility,
    private readonly bearer: BearerAuthenticator,
  ) {}

  open(stream: OpenStream): void {
    const mine = this.byUser.get(stream.principal.email) ?? new Set<EventStreamConnection>();
    const max = this.config.events.maxStreamsPerUser;
    if (mine.size >= max) throw new RateLimitedError(`You have ${mine.size} event streams open, the most allowed (EVENTS_MAX_STREAMS_PER_USER=${max}); close one first`);
    stream.begin();
    const caller = {
      principal: stream.principal,
      visible: (principal: UserPrincipal, event: FleetEvent) => this.visibility.visible(principal, event),
      reauthenticate: () => this.bearer.authenticate(stream.authorization),
    };
    const connection = new EventStreamConnection(stream.sink, caller, { ...LIMITS, maxQueued: 2 * this.config.events.windowSize }, (ended, reason) => this.ended(ended, reason));
    mine.add(connection);
    this.byUser.set(stream.principal.email, mine);
    stream.onClientGone(() => connection.close('client gone'));
    // Reading the window and subscribing in one turn: no event falls between the replay and the live ones.
    const replay = stream.lastEventId === undefined ? [] : this.journal.since(stream.lastEventId);
    const unsubscribe = this.journal.subscribe((event) => connection.offer(event));
    this.unsubscribers.set(connection, unsubscribe);
    connection.start(opening(replay === RESET ? 'reset' : stream.lastEventId === undefined ? 'new' : 'resumed', this.journal.headId()), replay === RESET ? [] : replay);
  }

  /** Open streams and what each holds (operations, and the tests' check that a stream stays bounded). */
  stats(): { email: string; bufferedBytes: number; queued: number }[] {
    return [...this.byUser.values()].flatMap((set) => [...set].map((c) => ({ email: c.email, bufferedBytes: c.bufferedBytes, queued: c.queued })));
  }

  beforeApplicationShutdown(): void {
    for (const set of [...this.byUser.values()]) for (const connection of [...set]) connection.close('server shutting down');
  }

  private ended(connection: EventStreamConnection, reason: string): void {
    this.unsubscribers.get(connection)?.();
    const mine = this.byUser.get(connection.email);
    mine?.delete(connection);
    if (mine?.size === 0) this.byUser.delete(connection.email);
    if (reason !== 'client gone' && reason !== 'server shutting down') this.logger.log(`event stream of ${connection.email} dropped: ${reason}`);
  }
}

/**
 * The first lines: how long to wait before reconnecting, then the id to resume from. A new stream
 * starts at the window's head (an id without data: no event, but the client keeps the id); a
 * client whose id is out of the window gets a `reset` first, so it reloads its lists.
 */
function opening(start: 'new' | 'resumed' | 'reset', headId: string): string {
  const retry = `retry: ${RECONNECT_MS}\n`;
  if (start === 'resumed') return `${retry}\n`;
  if (start === 'new') return `${retry}id: ${headId}\n\n`;
  const at = new Date().toISOString();
  return `${retry}\n${formatEvent({ id: headId, type: EVENT_STREAM_RESET, data: { type: EVENT_STREAM_RESET, at, reason: 'Last-Event-ID is not in the server\'s window (too old, another server, or a restart): reload, then follow from here' } })}`;
}
