import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import type { FleetEvent, FleetEventBody } from './fleet-event';

/** The id a stream resumes from is unknown here (another replica's, a restarted server's, or out of the window). */
export const RESET = 'reset';

/**
 * This replica's window of recent events: the last EVENTS_WINDOW events not older than
 * EVENTS_WINDOW_SECS, numbered `<epoch>-<seq>`. The epoch is drawn when the process starts, so an
 * id from another replica or from before a restart is never mistaken for one of this window's
 * (the stream answers it with a reset). Live streams subscribe; a resumed stream replays from it.
 */
@Injectable()
export class EventJournal {
  readonly epoch = randomBytes(6).toString('hex');
  private readonly events: FleetEvent[] = [];
  private nextSeq = 1;
  private readonly listeners = new Set<(event: FleetEvent) => void>();
  private readonly logger = new Logger('EventJournal');

  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly clock: Clock,
  ) {}

  append(body: FleetEventBody): FleetEvent {
    const seq = this.nextSeq++;
    const event: FleetEvent = { ...body, id: `${this.epoch}-${seq}`, seq, receivedAt: this.clock.now().getTime() };
    this.events.push(event);
    this.prune();
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.logger.error(`an event listener failed: ${(err as Error).message}`);
      }
    }
    return event;
  }

  /** The id of the newest event (or of none yet): where a stream opened now resumes from. */
  headId(): string {
    return `${this.epoch}-${this.nextSeq - 1}`;
  }

  /** The events after `lastEventId`, or RESET when some of them are no longer in the window (or the id is not this window's). */
  since(lastEventId: string): FleetEvent[] | typeof RESET {
    this.prune();
    const match = /^([0-9a-f]+)-(\d{1,15})$/.exec(lastEventId);
    if (!match || match[1] !== this.epoch) return RESET;
    const seq = Number(match[2]);
    const firstKept = this.events[0]?.seq ?? this.nextSeq;
    if (seq >= this.nextSeq || seq + 1 < firstKept) return RESET;
    return this.events.slice(seq + 1 - firstKept);
  }

  /** Every event appended from now on, until the returned function is called. */
  subscribe(listener: (event: FleetEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private prune(): void {
    const oldest = this.clock.now().getTime() - this.config.events.windowSecs * 1000;
    let drop = Math.max(0, this.events.length - this.config.events.windowSize);
    while (drop < this.events.length && this.events[drop].receivedAt < oldest) drop++;
    if (drop > 0) this.events.splice(0, drop);
  }
}
