// @vitest-environment node
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventStream, type FleetEvent, type StreamState } from './events';

/** One GET /events the stream made, and the server's end of its body. */
interface Connection {
  headers: Record<string, string>;
  signal: AbortSignal;
  send(text: string): void;
  end(): void;
}

/**
 * A fake `fetch` for /events: each call takes the next planned answer (an HTTP status refuses,
 * 'stream' opens a body the test writes to); the body errors as fetch's does when aborted.
 */
function fakeEvents(plan: (number | 'stream')[]) {
  const connections: Connection[] = [];
  const fetch = vi.fn(async (_url: string, init: { headers: Record<string, string>; signal: AbortSignal }) => {
    const answer = plan.shift() ?? 'stream';
    if (answer !== 'stream') return new Response(JSON.stringify({ code: 'DEVICE_OFFLINE', message: 'down' }), { status: answer });
    let body!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => void (body = controller) });
    init.signal.addEventListener('abort', () => body.error(new DOMException('The operation was aborted.', 'AbortError')));
    connections.push({ headers: init.headers, signal: init.signal, send: (text) => body.enqueue(new TextEncoder().encode(text)), end: () => body.close() });
    return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  });
  vi.stubGlobal('fetch', fetch);
  return { fetch, connections };
}

/** Lets every promise and stream read that can run, run (setImmediate is not faked). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
const after = async (ms: number) => {
  await vi.advanceTimersByTimeAsync(ms);
  await settle();
};
const event = (id: string, type: string, data: object = {}) => `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ type, at: '2026-01-01T00:00:00Z', ...data })}\n\n`;

describe('EventStream (GET /events for the pages)', () => {
  let token: string | null;
  let stream: EventStream;
  let states: StreamState[];

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    // No jitter: every wait is the base delay exactly (the jitter has its own test).
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    token = 'token-a';
    stream = new EventStream(() => token);
    states = [];
    stream.onState((state) => states.push(state));
  });
  afterEach(() => {
    stream.stop();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("waits the server's retry, doubled per failure in a row up to 30 s, then the retry again once a connection opened", async () => {
    const { fetch, connections } = fakeEvents([503, 503, 503, 503, 503, 503, 'stream', 503]);
    stream.start();
    await settle();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(states).toEqual(['connecting', 'reconnecting']);
    let calls = 1;
    for (const wait of [3_000, 6_000, 12_000, 24_000, 30_000, 30_000]) {
      await after(wait - 1);
      expect(fetch).toHaveBeenCalledTimes(calls);
      await after(1);
      expect(fetch).toHaveBeenCalledTimes(++calls);
    }
    // The seventh attempt opened: the server's retry (1 s) counts from now, and the doubling starts over.
    expect(states.at(-1)).toBe('live');
    connections[0].send('retry: 1000\nid: 7-0\n\n');
    connections[0].end();
    await settle();
    expect(states.at(-1)).toBe('reconnecting');
    await after(999);
    expect(fetch).toHaveBeenCalledTimes(calls);
    await after(1);
    expect(fetch).toHaveBeenCalledTimes(calls + 1);
    await after(1_999);
    expect(fetch).toHaveBeenCalledTimes(calls + 1);
    await after(1);
    expect(fetch).toHaveBeenCalledTimes(calls + 2);
  });

  it('spreads reconnects by ±20 % so that tabs do not come back in step', async () => {
    const { fetch } = fakeEvents([503, 503]);
    vi.mocked(Math.random).mockReturnValue(0);
    stream.start();
    await settle();
    await after(2_399);
    expect(fetch).toHaveBeenCalledTimes(1);
    // The second attempt fails too, and draws its wait at once: 6 s + 20 %.
    vi.mocked(Math.random).mockReturnValue(0.999_999);
    await after(1);
    expect(fetch).toHaveBeenCalledTimes(2);
    await after(7_199);
    expect(fetch).toHaveBeenCalledTimes(2);
    await after(1);
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it('resumes from the last id after a drop: the id-only opening block, then each event id', async () => {
    const { connections } = fakeEvents(['stream', 'stream', 'stream']);
    stream.start();
    await settle();
    expect(connections[0].headers).toEqual({ accept: 'text/event-stream', authorization: 'Bearer token-a' });
    // A new stream opens with only an id: nothing to dispatch, but where to resume from.
    connections[0].send('retry: 3000\nid: 5-0\n\n');
    connections[0].end();
    await after(3_000);
    expect(connections[1].headers['last-event-id']).toBe('5-0');
    connections[1].send(event('5-1', 'device.online', { device_id: 'd1' }) + event('5-2', 'device.offline', { device_id: 'd1' }));
    connections[1].end();
    await after(3_000);
    expect(connections[2].headers['last-event-id']).toBe('5-2');
  });

  it('tells every subscriber a reset, whatever types it follows, and each event only to those following its type', async () => {
    const { connections } = fakeEvents(['stream']);
    const seen: Record<string, FleetEvent[]> = { presence: [], registrations: [], all: [] };
    stream.subscribe(['device.online', 'device.offline'], (e) => seen.presence.push(e));
    stream.subscribe(['registration.pending'], (e) => seen.registrations.push(e));
    const unsubscribe = stream.subscribe(null, (e) => seen.all.push(e));
    stream.start();
    await settle();
    connections[0].send(event('9-1', 'device.online', { device_id: 'd1' }));
    connections[0].send('event: device.offline\ndata: {not json\n\n');
    connections[0].send(event('9-2', 'reset', { reason: 'unknown id' }));
    await settle();
    expect(seen.presence.map((e) => [e.type, e.id])).toEqual([
      ['device.online', '9-1'],
      ['reset', '9-2'],
    ]);
    expect(seen.registrations.map((e) => e.type)).toEqual(['reset']);
    expect(seen.all.map((e) => e.type)).toEqual(['device.online', 'reset']);
    expect(seen.presence[1].data).toMatchObject({ type: 'reset', reason: 'unknown id' });
    unsubscribe();
    connections[0].send(event('9-3', 'device.online', { device_id: 'd1' }));
    await settle();
    expect(seen.all).toHaveLength(2);
    expect(seen.presence).toHaveLength(3);
  });

  it('reconnects at once with a renewed token, from the last id, without showing "reconnecting"', async () => {
    const { fetch, connections } = fakeEvents(['stream', 'stream']);
    stream.start();
    await settle();
    connections[0].send(event('3-4', 'device.online', { device_id: 'd1' }));
    await settle();
    stream.tokenChanged(); // the same token: nothing to do
    await settle();
    expect(fetch).toHaveBeenCalledTimes(1);

    token = 'token-b';
    stream.tokenChanged();
    await settle();
    expect(connections[0].signal.aborted).toBe(true);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(connections[1].headers).toEqual({ accept: 'text/event-stream', authorization: 'Bearer token-b', 'last-event-id': '3-4' });
    expect(states).toEqual(['connecting', 'live']);
    // The old connection's end starts no second follower: one stream, and no retry after its delay.
    await after(30_000);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('stops on sign-out: no reconnect, and the next start resumes nothing', async () => {
    const { fetch, connections } = fakeEvents(['stream', 'stream']);
    stream.start();
    await settle();
    connections[0].send(event('2-1', 'device.online'));
    await settle();
    stream.stop();
    await after(60_000);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(states.at(-1)).toBe('stopped');
    stream.start();
    await settle();
    expect(connections[1].headers['last-event-id']).toBeUndefined();
  });

  it('makes no request without a token, and tries again later', async () => {
    const { fetch } = fakeEvents(['stream']);
    token = null;
    stream.start();
    await after(3_000);
    expect(fetch).not.toHaveBeenCalled();
    token = 'token-c';
    await after(6_000);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(states.at(-1)).toBe('live');
  });
});
