import type { UserPrincipal } from '../auth/principal';
import type { FleetEvent } from './fleet-event';

/** What a connection writes to: an HTTP response (a test's fake in the unit spec). */
export interface EventSink {
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
  end(): void;
  /** Drops the connection with whatever it still buffers (a reader that stopped reading would hold it forever). */
  destroy(): void;
  readonly writableLength: number;
}

export interface EventStreamLimits {
  /** Events waiting to be sent; one more and the stream is dropped (it resumes with a reset). */
  maxQueued: number;
  /** How long a full socket may stay full before the stream is dropped. */
  stallMs: number;
  heartbeatMs: number;
  /** How often the caller's token and memberships are checked again. */
  reauthenticateMs: number;
}

export interface EventStreamCaller {
  principal: UserPrincipal;
  visible(principal: UserPrincipal, event: FleetEvent): Promise<boolean>;
  /** The caller as its token says now (memberships, account); rejects when the token no longer holds. */
  reauthenticate(): Promise<UserPrincipal>;
}

/**
 * One open `GET /events`: events are checked (EventVisibility) and written one by one, in order.
 * While the socket is full nothing more is written; a reader that stays behind (more than
 * `maxQueued` events waiting, or a full socket for `stallMs`) is dropped, so a stream holds at most
 * those references and one socket buffer. A comment line every `heartbeatMs` keeps proxies from
 * closing a quiet stream.
 */
export class EventStreamConnection {
  private readonly queue: FleetEvent[] = [];
  private pumping = false;
  private blocked = false;
  private closed = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private readonly timers: NodeJS.Timeout[];

  constructor(
    private readonly sink: EventSink,
    private readonly caller: EventStreamCaller,
    private readonly limits: EventStreamLimits,
    private readonly onEnd: (connection: EventStreamConnection, reason: string) => void,
  ) {
    this.timers = [
      setInterval(() => this.heartbeat(), limits.heartbeatMs),
      setInterval(() => void this.reauthenticate(), limits.reauthenticateMs),
    ];
    for (const timer of this.timers) timer.unref();
  }

  get email(): string {
    return this.caller.principal.email;
  }

  /** Bytes written but not yet taken by the socket. */
  get bufferedBytes(): number {
    return this.sink.writableLength;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** The stream's first lines (`retry:`, the starting id or a reset), then the events to replay. */
  start(opening: string, replay: readonly FleetEvent[]): void {
    this.write(opening);
    for (const event of replay) this.offer(event);
  }

  offer(event: FleetEvent): void {
    if (this.closed) return;
    if (this.queue.length >= this.limits.maxQueued) return this.drop(`fell ${this.queue.length} events behind`);
    this.queue.push(event);
    void this.pump();
  }

  /** Ends the stream after what was written (the client reconnects with Last-Event-ID). */
  close(reason: string): void {
    this.finish(reason, () => this.sink.end());
  }

  /** Ends a stream that stopped reading at once, discarding what its socket still holds. */
  private drop(reason: string): void {
    this.finish(reason, () => this.sink.destroy());
  }

  private finish(reason: string, end: () => void): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    for (const timer of this.timers) clearInterval(timer);
    clearTimeout(this.stallTimer);
    end();
    this.onEnd(this, reason);
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.closed && !this.blocked && this.queue.length > 0) {
        const event = this.queue.shift()!;
        if (this.aboutMyMembership(event) && !(await this.reauthenticate())) return;
        if (!this.closed && (await this.caller.visible(this.caller.principal, event))) this.write(formatEvent(event));
      }
    } catch (err) {
      this.close(`an event could not be checked: ${(err as Error).message}`);
    } finally {
      this.pumping = false;
    }
  }

  private write(text: string): void {
    if (this.closed || this.sink.write(text)) return;
    this.blocked = true;
    this.stallTimer = setTimeout(() => this.drop(`not read for ${this.limits.stallMs / 1000} s`), this.limits.stallMs);
    this.sink.once('drain', () => {
      clearTimeout(this.stallTimer);
      this.blocked = false;
      void this.pump();
    });
  }

  /** The caller's own membership changed: its principal (scopes, roles) is read again before deciding. */
  private aboutMyMembership(event: FleetEvent): boolean {
    return 'member' in event.audience && event.audience.member === this.caller.principal.email;
  }

  private heartbeat(): void {
    if (!this.blocked) this.write(': keep-alive\n\n');
  }

  /** Memberships change and tokens expire: false when the stream ended. */
  private async reauthenticate(): Promise<boolean> {
    try {
      this.caller.principal = await this.caller.reauthenticate();
      return true;
    } catch (err) {
      this.close(`the caller's token no longer holds: ${(err as Error).message}`);
      return false;
    }
  }
}

/** One event on the wire: `data` is one line of JSON (JSON.stringify escapes line breaks). */
export function formatEvent(event: { id: string; type: string; data: Record<string, unknown> }): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}
