import type { Deployment, DeploymentStatus } from '@svc/common';
import { allRunning, batchStatusText, deploymentSummary, StatusItem, statusBlock } from './deployment-views';

const status = (over: Partial<DeploymentStatus> = {}): DeploymentStatus => ({
  deployment_id: 'd1',
  status: 'running',
  jobs: [{ id: 'web', status: 'running', health: 'healthy', restarts: 2, reason: 'exited with code 1' }],
  reported_at: '2026-11-23T10:00:00.000Z',
  online: true,
  stale: false,
  ...over,
});
const NOW = new Date('2026-11-23T10:03:04.000Z');

describe('allRunning (the exit code of svc deployments status)', () => {
  it.each<[string, StatusItem[], boolean]>([
    ['one running', [{ device: 'a', ...status() }], true],
    ['every device running', [{ device: 'a', ...status() }, { device: 'b', ...status() }], true],
    ['one degraded', [{ device: 'a', ...status() }, { device: 'b', ...status({ status: 'degraded' }) }], false],
    ['not reported yet', [{ device: 'a', ...status({ status: 'pending', reported_at: null }) }], false],
    ['rolled back', [{ device: 'a', ...status({ status: 'rolled_back' }) }], false],
    ['running on an offline device', [{ device: 'a', ...status({ online: false, stale: true }) }], false],
    ['running, but stale', [{ device: 'a', ...status({ stale: true }) }], false],
    ['running after a rollback went back to it', [{ device: 'a', ...status({ rolled_back_from: { deployment_id: 'd2', reason: 'r', at: 't' } }) }], false],
    ['a device without a deployment', [{ device: 'a', ...status() }, { device: 'b', error: 'No active deployment', code: 'NO_ACTIVE_DEPLOYMENT' }], false],
  ])('%s', (_, items, expected) => {
    expect(allRunning(items)).toBe(expected);
  });
});

describe('deployment views', () => {
  it('shows a status as a line and a table of jobs, the rollback and its reason below', () => {
    const text = statusBlock(status({ status: 'rolled_back', rollback: { reason: 'job web is unhealthy', to_deployment_id: 'd0' } }), NOW);
    expect(text.split('\n')).toEqual([
      'Deployment d1: rolled_back (reported 2026-11-23T10:00:00.000Z, 3m04s ago)',
      'JOB  STATUS   HEALTH   RESTARTS  REASON',
      'web  running  healthy  2         exited with code 1',
      'Rolled back to deployment d0: job web is unhealthy',
    ]);
    expect(statusBlock(status({ status: 'pending', reported_at: null, jobs: [] }))).toBe('Deployment d1: pending (not reported by the device yet)');
  });

  it('says when the device is offline or its report stale, and which rollback made a deployment active', () => {
    expect(statusBlock(status({ online: false, stale: true, jobs: [] }), NOW).split('\n')).toEqual([
      'Deployment d1: running (reported 2026-11-23T10:00:00.000Z, 3m04s ago)',
      'Device offline: this is its last report, and may no longer be true.',
    ]);
    expect(statusBlock(status({ stale: true, jobs: [] }), NOW)).toMatch(/\nStale: the device is online but has not reported on this deployment for over 3 minutes/);
    const after = statusBlock(status({ jobs: [], rolled_back_from: { deployment_id: 'd2', reason: 'job api is unhealthy\u001b[2J', at: '2026-11-23T10:01:00.000Z' } }), NOW);
    expect(after).toBe('Deployment d1: running (reported 2026-11-23T10:00:00.000Z, 3m04s ago)\nActive after an automatic rollback: deployment d2 was rolled back at 2026-11-23T10:01:00.000Z: job api is unhealthy\\x1b[2J');
  });

  it('escapes what the device reported', () => {
    const text = statusBlock(status({ jobs: [{ id: 'web', status: 'failed', health: 'unhealthy', reason: 'boom\u001b[2J\u202e' }], rollback: { reason: 'x\u001b]0;pwned\u0007', to_deployment_id: null } }));
    expect(text).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(text).toContain('boom\\x1b[2J\\u{202e}');
    expect(text).toContain('Rolled back to no deployment: x\\x1b]0;pwned\\x07');
  });

  it('prints a batch per device, an error in place of a status', () => {
    const text = batchStatusText([{ device: 'edge\u001b', ...status({ jobs: [] }) }, { device: 'b', error: 'No active deployment', code: 'NO_ACTIVE_DEPLOYMENT' }], NOW);
    expect(text).toBe('edge\\x1b: Deployment d1: running (reported 2026-11-23T10:00:00.000Z, 3m04s ago)\n\nb: error: No active deployment');
  });

  it('summarises a deployment with its rollback policy and a table of its jobs', () => {
    const deployment = {
      id: 'd1',
      active: true,
      name: 'shop',
      rollback: { on_health_failure: { consecutive: 3 }, stabilization_period_secs: 60 },
      created_at: 'c',
      updated_at: 'u',
      jobs: [
        {
          id: 'web',
          type: 'service',
          enabled: true,
          workdir: { kind: 'persistent' },
          files: {},
          env: {},
          steps: [{ name: 'deps', run: 'x' }, { name: 'serve', run: 'y' }],
          on_failure: { undo: 'none' },
          stop: { steps: [] },
          observe: { health: { every: '5s', observe: 'true', fails_after: 3 } },
          restart: { policy: 'on_failure', backoff: '1s', max_backoff: '5m' },
          source: 'runspec',
        },
      ],
    } satisfies Deployment;
    expect(deploymentSummary('edge-1', deployment).split('\n')).toEqual([
      'Deployment d1 on edge-1 (active)',
      'Name:     shop',
      'Rollback: after 3 failed health checks in a row, within 60 s of activation',
      'Created:  c, updated u',
      '',
      'JOB  TYPE     ENABLED  STEPS        PROBES           RESTART',
      'web  service  yes      deps, serve  health every 5s  on_failure (1s-5m)',
    ]);
    expect(deploymentSummary('edge-1', { ...deployment, active: false, name: undefined, rollback: undefined, jobs: [] })).toBe('Deployment d1 on edge-1\nRollback: none\nCreated:  c, updated u\n\nNo jobs: add one with svc deploy.');
  });
});
