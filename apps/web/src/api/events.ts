import { createParser } from 'eventsource-parser';
import type { TokenSource } from './client';

/** An event of GET /events (docs/dashboard.md, "Event stream"): `type` is `event:`, `data` its JSON. */
export interface FleetEvent {
  id: string | undefined;
  type: string;
  data: Record<string, unknown> & { type: string; at: string; device_id?: string; org_id?: string };
}

/** The stream's state, for the header's indicator: `reconnecting` once a connection was lost. */
export type StreamState = 'stopped' | 'connecting' | 'live' | 'reconnecting';

/** Sent to every listener when the server cannot resume (`reset`): reload what you show. */
export const RESET = 'reset';

/** Until the server's `retry:` says otherwise (it sends 3000). */
const DEFAULT_RETRY_MS = 3_000;
/** Failures in a row double the wait, up to this. */
const MAX_RETRY_MS = 30_000;

type Listener = (event: FleetEvent) => void;

/**
 * One GET /events stream for the whole tab, shared by the pages through `subscribe`.
 *
 * The browser's EventSource cannot send an Authorization header, and a token never goes into a
 * URL, so the stream is read with `fetch` and parsed by eventsource-parser. After a drop it
 * reconnects with `Last-Event-ID` (the server replays what was missed, or sends `reset`), waiting
 * the server's `retry:` with jitter, doubled while attempts keep failing. `reconnect()` starts a new
 * connection at once (a renewed token); `stop()` ends it (sign-out).
 */
export class EventStream {
  private readonly listeners = new Set<{ types: ReadonlySet<string> | null; listener: Listener }>();
  private readonly stateListeners = new Set<(state: StreamState) => void>();
  private current: StreamState = 'stopped';
  private lastEventId: string | undefined;
  private retryMs = DEFAULT_RETRY_MS;
  private run: AbortController | null = null;
  /** The token the open connection was made with. */
  private usedToken: string | null = null;

  constructor(private readonly token: TokenSource) {}

  get state(): StreamState {
    return this.current;
  }

  /** Calls `listener` for events of `types` (all when null) and for `reset`; returns the unsubscribe. */
  subscribe(types: readonly string[] | null, listener: Listener): () => void {
    const entry = { types: types ? new Set([...types, RESET]) : null, listener };
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  onState(listener: (state: StreamState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Starts following (no-op while running). */
  start(): void {
    if (this.run) return;
    const run = new AbortController();
    this.run = run;
    void this.follow(run.signal);
  }

  /** Reconnects now when the token changed since the connection was made (a renewal). */
  tokenChanged(): void {
    if (this.run && this.token() !== this.usedToken) this.reconnect();
  }

  /** Drops the connection and opens a new one at once, resuming from the last id (the indicator does not blink). */
  reconnect(): void {
    this.run?.abort();
    this.run = null;
    this.start();
  }

  /** Ends the stream (sign-out): no reconnect; the next start() resumes nothing. */
  stop(): void {
    this.run?.abort();
    this.run = null;
    this.lastEventId = undefined;
    this.setState('stopped');
  }

  private async follow(signal: AbortSignal): Promise<void> {
    let failures = 0;
    if (this.current === 'stopped') this.setState('connecting');
    while (!signal.aborted) {
      const opened = await this.connect(signal).catch(() => false);
      if (signal.aborted) return;
      failures = opened ? 1 : failures + 1;
      this.setState('reconnecting');
      await sleep(backoff(this.retryMs, failures), signal);
    }
  }

  /** One connection: true when it opened (and later ended), false when it was refused or unreachable. */
  private async connect(signal: AbortSignal): Promise<boolean> {
    const token = this.token();
    this.usedToken = token;
    if (!token) return false;
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${token}` };
    if (this.lastEventId !== undefined) headers['last-event-id'] = this.lastEventId;
    const res = await fetch('/events', { headers, signal, cache: 'no-store' });
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      return false;
    }
    this.setState('live');
    const parser = createParser({
      onRetry: (ms) => (this.retryMs = ms),
      // Also the block with only an id that a new stream opens with: where to resume from.
      onId: (id) => (this.lastEventId = id),
      onEvent: (message) => this.dispatch(message.event ?? 'message', message.id, message.data),
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return true;
        parser.feed(value);
      }
    } catch {
      return true;
    }
  }

  private dispatch(type: string, id: string | undefined, text: string): void {
    let data: FleetEvent['data'];
    try {
      data = JSON.parse(text) as FleetEvent['data'];
    } catch {
      return;
    }
    const event: FleetEvent = { id, type, data };
    for (const { types, listener } of [...this.listeners]) if (!types || types.has(type)) listener(event);
  }

  private setState(state: StreamState): void {
    if (state === this.current) return;
    this.current = state;
    for (const listener of [...this.stateListeners]) listener(state);
  }
}

/** The server's delay, doubled per failure in a row (capped), with ±20 % jitter so tabs do not reconnect in step. */
function backoff(retryMs: number, failures: number): number {
  const base = Math.min(retryMs * 2 ** Math.max(0, failures - 1), MAX_RETRY_MS);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
