import { ManualClock } from '../common/clock';
import type { ServerConfig } from '../config/server-config';
import { EventJournal, RESET } from './event-journal';
import type { FleetEventBody } from './fleet-event';

function journal(windowSize: number, windowSecs = 600) {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  const config = { events: { windowSize, windowSecs, maxStreamsPerUser: 8 } } as ServerConfig;
  return { clock, journal: new EventJournal(config, clock) };
}

const body = (n: number): FleetEventBody => ({ type: 'device.online', at: new Date(0).toISOString(), data: { n }, audience: { deviceId: `d${n}` } });

describe('EventJournal', () => {
  it('replays exactly the events after an id inside the window', () => {
    const { journal: j } = journal(10);
    const start = j.headId();
    const ids = [1, 2, 3].map((n) => j.append(body(n)).id);
    expect(j.since(start)).toEqual([expect.objectContaining({ id: ids[0] }), expect.objectContaining({ id: ids[1] }), expect.objectContaining({ id: ids[2] })]);
    expect((j.since(ids[1]) as { id: string }[]).map((e) => e.id)).toEqual([ids[2]]);
    expect(j.since(ids[2])).toEqual([]);
  });

  it.each([
    ['an id whose next event fell out of the count window', (j: EventJournal, first: string) => first],
    ['an id of another epoch (replica or restart)', () => 'abcdef-1'],
    ['an id ahead of the head', (j: EventJournal) => `${j.epoch}-999`],
    ['a malformed id', () => 'hello'],
  ])('answers RESET for %s', (_what, id) => {
    const { journal: j } = journal(2);
    const first = j.headId();
    for (const n of [1, 2, 3]) j.append(body(n));
    expect(j.since(id(j, first))).toBe(RESET);
  });

  it('forgets events older than the time window', () => {
    const { journal: j, clock } = journal(100, 60);
    const start = j.headId();
    j.append(body(1));
    clock.advance(61_000);
    const later = j.append(body(2));
    expect(j.since(start)).toBe(RESET);
    expect(j.since(later.id)).toEqual([]);
  });

  it('tells subscribers every appended event until they unsubscribe', () => {
    const { journal: j } = journal(10);
    const seen: number[] = [];
    const stop = j.subscribe((e) => seen.push(e.data.n as number));
    j.append(body(1));
    stop();
    j.append(body(2));
    expect(seen).toEqual([1]);
  });
});
