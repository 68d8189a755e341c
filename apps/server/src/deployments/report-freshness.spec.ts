import { STALE_REPORT_MS } from '@svc/common';
import { FreshnessFacts, isStale } from './report-freshness';

const now = new Date('2026-01-01T12:00:00Z');
const before = (ms: number) => new Date(now.getTime() - ms);
const online: FreshnessFacts = { online: true, active: true, receivedAt: before(1000), connectedAt: before(3_600_000), activatedAt: before(7_200_000), now };

describe('isStale', () => {
  it.each<[string, Partial<FreshnessFacts>, boolean]>([
    ['a device reporting on its active deployment', {}, false],
    ['an offline device, however recent its report', { online: false, connectedAt: null }, true],
    ['no report for just under the limit', { receivedAt: before(STALE_REPORT_MS) }, false],
    ['no report for longer than the limit', { receivedAt: before(STALE_REPORT_MS + 1) }, true],
    ['never reported, active long ago', { receivedAt: null }, true],
    ['an old report, but connected only just now', { receivedAt: before(86_400_000), connectedAt: before(1000) }, false],
    ['an old report, but activated only just now', { receivedAt: before(86_400_000), activatedAt: before(1000) }, false],
    ['an inactive deployment: its last report is final', { active: false, receivedAt: before(86_400_000) }, false],
    ['an inactive deployment on an offline device', { active: false, online: false, connectedAt: null }, true],
  ])('%s', (_case, facts, stale) => {
    expect(isStale({ ...online, ...facts })).toBe(stale);
  });
});
