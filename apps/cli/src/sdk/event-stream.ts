import type { IncomingMessage } from 'node:http';
import { DomainError, ServerUnreachableError } from '@svc/common';
import type { SvcClient } from './svc-client';

/** An event of GET /events (docs/dashboard.md, "Event stream"). */
export interface FleetStreamEvent {
  id: string | undefined;
  /** `event:` (also `data.type`): device.online, registration.pending, …, or reset. */
  type: string;
  data: Record<string, unknown>;
}

export interface FollowOptions {
  /** Ends the follow (Ctrl-C): the generator returns. */
  signal: AbortSignal;
  /** The stream dropped; the next attempt, with Last-Event-ID, comes after `retryMs`. */
  onDrop?: (reason: string, retryMs: number) => void;
}

/** Until the server's `retry:` says otherwise. */
const DEFAULT_RETRY_MS = 3_000;

/**
 * Follows GET /events until `signal` aborts: every event as it arrives, and after a drop (the
 * server restarting, the network, the access token expiring) a reconnect with `Last-Event-ID`,
 * so no event in the server's window is missed (outside it, the server sends `reset` first).
 * The first connection's failure, and a refusal later on (401, 403, 429), end it with their error.
 */
export async function* followEvents(client: SvcClient, options: FollowOptions): AsyncGenerator<FleetStreamEvent> {
  const { signal } = options;
  let lastEventId: string | undefined;
  let retryMs = DEFAULT_RETRY_MS;
  let connected = false;
  while (!signal.aborted) {
    let reason: string;
    try {
      const body = await client.events(lastEventId);
      connected = true;
      const stop = () => body.destroy();
      signal.addEventListener('abort', stop, { once: true });
      try {
        for await (const block of sseBlocks(body)) {
          const parsed = parseBlock(block);
          if (parsed.id !== undefined) lastEventId = parsed.id;
          if (parsed.retry !== undefined) retryMs = parsed.retry;
          if (parsed.event) yield parsed.event;
        }
        reason = 'the server ended the stream';
      } finally {
        signal.removeEventListener('abort', stop);
      }
    } catch (error) {
      if (signal.aborted) return;
      const unreachable = error instanceof ServerUnreachableError;
      if (!connected || (error instanceof DomainError && !unreachable)) throw error;
      reason = (error as Error).message || 'the connection broke';
    }
    if (signal.aborted) return;
    options.onDrop?.(reason, retryMs);
    await sleep(retryMs, signal);
  }
}

/** The blocks of an event stream (separated by a blank line), as text. */
async function* sseBlocks(body: IncomingMessage): AsyncGenerator<string> {
  body.setEncoding('utf8');
  let pending = '';
  for await (const chunk of body as AsyncIterable<string>) {
    pending += chunk.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      yield pending.slice(0, end);
      pending = pending.slice(end + 2);
    }
  }
}

/** One block's fields: comments (`: keep-alive`) and unknown fields are ignored, as the SSE standard says. */
export function parseBlock(block: string): { id?: string; retry?: number; event?: FleetStreamEvent } {
  const fields: { id?: string; retry?: number } = {};
  let type = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'id' && !value.includes('\0')) fields.id = value;
    else if (name === 'retry' && /^\d{1,7}$/.test(value)) fields.retry = Number(value);
    else if (name === 'event') type = value;
    else if (name === 'data') data.push(value);
  }
  if (data.length === 0) return fields;
  const parsed: unknown = JSON.parse(data.join('\n'));
  const object = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed };
  return { ...fields, event: { id: fields.id, type, data: object } };
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
