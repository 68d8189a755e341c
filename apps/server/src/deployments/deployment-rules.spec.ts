import type { Job } from '@svc/common';
import { ManualClock } from '../common/clock';
import { checkReport } from './report-schema';
import { nextRevision } from './deployment-state';
import { mergeJobs } from './deployments.service';

const job = (id: string, env: Record<string, string> = {}) => ({ id, env }) as unknown as Job;
const DEPLOYMENT = '0b5e1c1e-7d1f-4f59-9a51-3c1c2f9a0d11';
const report = (over: Record<string, unknown> = {}) => ({
  deployment_id: DEPLOYMENT,
  status: 'running',
  jobs: [{ id: 'web', status: 'running', health: 'healthy' }],
  reported_at: '2026-01-02T03:04:05.000Z',
  ...over,
});

describe('mergeJobs', () => {
  it('replaces jobs with the same id in place and appends new ones, in request order', () => {
    const merged = mergeJobs([job('a'), job('b'), job('c')], [job('d'), job('b', { X: '1' }), job('e')]);
    expect(merged).toEqual([job('a'), job('b', { X: '1' }), job('c'), job('d'), job('e')]);
  });
});

describe('nextRevision', () => {
  const clock = new ManualClock(new Date(1_700_000_000_000));
  it.each([
    ['a first change: the time', 0, 1_700_000_000_000],
    ['later than the last: the time', 1_600_000_000_000, 1_700_000_000_000],
    ['a clock behind the last: one more', 1_700_000_000_500, 1_700_000_000_501],
  ])('%s', (_label, revision, next) => {
    expect(nextRevision({ id: 'd', activeDeploymentId: null, revision }, clock)).toBe(next);
  });
});

describe('checkReport', () => {
  it('accepts a report, drops fields it does not know and escapes control characters', () => {
    const checked = checkReport(report({ newer: true, jobs: [{ id: 'web', status: 'failed', health: 'unhealthy', reason: 'bad\u001b[2J\u202e', extra: 1, log_tail: ['\u0007bell'] }] }));
    expect(checked).toEqual({ report: report({ jobs: [{ id: 'web', status: 'failed', health: 'unhealthy', reason: 'bad\\u001b[2J\\u202e', log_tail: ['\\u0007bell'] }] }) });
  });

  it.each<[string, unknown, RegExp]>([
    ['not an object', 'report', /must be object/],
    ['an unknown status', report({ status: 'exploded' }), /status/],
    ['a job state out of the model', report({ jobs: [{ id: 'web', status: 'dancing', health: 'healthy' }] }), /status/],
    ['a bad job id', report({ jobs: [{ id: '../x', status: 'running', health: 'healthy' }] }), /id/],
    ['too many jobs', report({ jobs: Array(65).fill({ id: 'web', status: 'running', health: 'healthy' }) }), /jobs/],
    ['a long reason', report({ jobs: [{ id: 'web', status: 'failed', health: 'unhealthy', reason: 'x'.repeat(2001) }] }), /reason/],
    ['no time', report({ reported_at: undefined }), /reported_at/],
    ['a time that is none', report({ reported_at: 'yesterday' }), /reported_at/],
    ['a rollback without its target', report({ status: 'rolled_back', rollback: { reason: 'x' } }), /to_deployment_id/],
  ])('refuses %s', (_label, value, problem) => {
    const checked = checkReport(value);
    expect('problem' in checked && checked.problem).toMatch(problem);
  });
});
