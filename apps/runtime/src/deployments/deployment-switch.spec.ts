import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { deployment, EngineKit, job, jobStatus, processRunning, readPid, report, sleeper } from '../../../../test/fixtures/deployment-jobs';
import { persistentWorkdir } from './job-workdir';
import { eventually } from '../../../../test/fixtures/eventually';

/** A sleeper whose main process also starts a background child in its group, so both must go at stop. */
function familySleeper(id: string) {
  return job({ id, steps: [{ name: 'main', run: 'sleep 300 & echo $! > child; echo $$ > pid; exec sleep 300' }] });
}

describe('reconciling deployments', () => {
  const kit = new EngineKit();
  afterEach(() => kit.cleanUp());

  async function pids(dir: string, jobId: string): Promise<number[]> {
    const workdir = persistentWorkdir(dir, jobId);
    return [await eventually(`${jobId} pid`, () => readPid(join(workdir, 'pid'))), await eventually(`${jobId} child`, () => readPid(join(workdir, 'child')))];
  }

  it('switching deployments stops every process of the old one, then runs the new one', async () => {
    const dir = kit.tempDir();
    const engine = kit.engine(dir);
    await engine.start();
    await engine.apply({ revision: 1, deployment: deployment('old', [familySleeper('a'), familySleeper('shared')]) });
    const old = [...(await pids(dir, 'a')), ...(await pids(dir, 'shared'))];
    expect(old.every(processRunning)).toBe(true);

    // `shared` is the same job in the new deployment: another deployment still restarts it.
    const reports = await engine.apply({ revision: 2, deployment: deployment('new', [familySleeper('shared'), sleeper('b')]) });
    expect(old.filter(processRunning)).toEqual([]);
    expect(reports[0]).toMatchObject({ deployment_id: 'old', status: 'stopped', jobs: [{ id: 'a', status: 'stopped' }, { id: 'shared', status: 'stopped' }] });
    expect(reports[1].deployment_id).toBe('new');
    const fresh = await pids(dir, 'shared');
    expect(fresh.some((pid) => old.includes(pid))).toBe(false);
    await eventually('new running', () => report(engine, 'new')?.status === 'running');
    expect(engine.reports().map((candidate) => candidate.deployment_id)).toEqual(['new']);
  });

  it('within a deployment starts added jobs, stops removed and disabled ones, restarts changed ones and leaves the rest running', async () => {
    const dir = kit.tempDir();
    const engine = kit.engine(dir);
    await engine.start();
    await engine.apply({ revision: 1, deployment: deployment('d', [sleeper('keep'), sleeper('change'), sleeper('remove'), sleeper('disable')]) });
    const before = Object.fromEntries(await Promise.all(['keep', 'change', 'remove', 'disable'].map(async (id) => [id, await eventually(id, () => readPid(join(persistentWorkdir(dir, id), 'pid')))] as const)));

    const changed = sleeper('change', { env: { VERSION: '2' } });
    const disabled = sleeper('disable', { enabled: false });
    await engine.apply({ revision: 2, deployment: deployment('d', [sleeper('keep'), changed, disabled, sleeper('add')], { updated_at: '2025-02-01T00:00:00.000Z' }) });
    expect(processRunning(before.keep)).toBe(true);
    expect(processRunning(before.remove)).toBe(false);
    expect(processRunning(before.disable)).toBe(false);
    expect(processRunning(before.change)).toBe(false);
    await eventually('changed restarted', () => readPid(join(persistentWorkdir(dir, 'change'), 'pid')) !== before.change && readPid(join(persistentWorkdir(dir, 'change'), 'pid')));
    await eventually('added running', () => readPid(join(persistentWorkdir(dir, 'add'), 'pid')));
    const status = await eventually('running', () => report(engine, 'd')?.status === 'running' && report(engine, 'd'));
    expect(status.jobs.map(({ id, status: state }) => [id, state])).toEqual([
      ['keep', 'running'],
      ['change', 'running'],
      ['disable', 'disabled'],
      ['add', 'running'],
    ]);
  });

  it('a null desired state stops everything; the same revision again is a replay', async () => {
    const dir = kit.tempDir();
    const engine = kit.engine(dir);
    await engine.start();
    await engine.apply({ revision: 5, deployment: deployment('d', [sleeper('a')]) });
    const pid = await eventually('pid', () => readPid(join(persistentWorkdir(dir, 'a'), 'pid')));
    // A replay of revision 5 with other content is not applied.
    await engine.apply({ revision: 5, deployment: null });
    expect(processRunning(pid)).toBe(true);
    const reports = await engine.apply({ revision: 6, deployment: null });
    expect(processRunning(pid)).toBe(false);
    expect(reports).toEqual([expect.objectContaining({ deployment_id: 'd', status: 'stopped' })]);
    expect(engine.reports()).toEqual([]);
    // A server whose database was reset starts low again: any other revision is new.
    await engine.apply({ revision: 1, deployment: deployment('d', [sleeper('a')]) });
    await eventually('running again', () => jobStatus(engine, 'a')?.status === 'running');
  });

  it('runs the stored desired state at start-up, without any server, and keeps state.json private', async () => {
    const dir = kit.tempDir();
    const first = kit.engine(dir);
    await first.start();
    await first.apply({ revision: 3, deployment: deployment('d', [sleeper('a'), sleeper('b')]) });
    const before = await eventually('pid', () => readPid(join(persistentWorkdir(dir, 'a'), 'pid')));
    await kit.shutdown(first);
    expect(processRunning(before)).toBe(false);
    expect(statSync(join(dir, 'state.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'))).toMatchObject({ revision: 3, desired: 'running', running: { id: 'd' } });

    const second = kit.engine(dir);
    await second.start();
    const after = await eventually('pid again', () => readPid(join(persistentWorkdir(dir, 'a'), 'pid')) !== before && readPid(join(persistentWorkdir(dir, 'a'), 'pid')));
    expect(processRunning(after)).toBe(true);
    await eventually('running', () => report(second, 'd')?.status === 'running');
    // The server then replays the same revision: nothing restarts.
    await second.apply({ revision: 3, deployment: deployment('d', [sleeper('a'), sleeper('b')]) });
    expect(readPid(join(persistentWorkdir(dir, 'a'), 'pid'))).toBe(after);
  });

  it('runs the stop steps after stopping the main process', async () => {
    const dir = kit.tempDir();
    const engine = kit.engine(dir);
    await engine.start();
    const withStop = sleeper('a', { stop: { steps: [{ name: 'down', run: 'echo down > stopped' }] } });
    await engine.apply({ revision: 1, deployment: deployment('d', [withStop]) });
    const pid = await eventually('pid', () => readPid(join(persistentWorkdir(dir, 'a'), 'pid')));
    await engine.apply({ revision: 2, deployment: null });
    expect(processRunning(pid)).toBe(false);
    expect(readFileSync(join(persistentWorkdir(dir, 'a'), 'stopped'), 'utf8')).toBe('down\n');
  });

  it('SIGKILLs a main process that ignores SIGTERM after the stop grace period', async () => {
    const dir = kit.tempDir();
    const engine = kit.engine(dir);
    await engine.start();
    const stubborn = job({ id: 'stubborn', steps: [{ name: 'main', run: "trap '' TERM; echo $$ > pid; while true; do sleep 0.1; done" }] });
    await engine.apply({ revision: 1, deployment: deployment('d', [stubborn]) });
    const pid = await eventually('pid', () => readPid(join(persistentWorkdir(dir, 'stubborn'), 'pid')));
    const started = Date.now();
    await engine.apply({ revision: 2, deployment: null });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(processRunning(pid)).toBe(false);
  });
});
