/**
 * "1,000 execs leave no zombie and no stray process": the original system's runtime leaked
 * processes until fork failed. A real runtime process runs 1,000 commands through POST /api/exec
 * (8 at a time), a tenth of which leave a background child behind; afterwards /proc shows no
 * child of the runtime (zombie or alive) and no leftover background process anywhere.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { useFleet } from './fixtures/fleet';
import { eventually } from './fixtures/eventually';
import { attemptOf } from './fixtures/operation-client';

const EXECS = 1000;
const CONCURRENCY = 8;
/** A sleep no other process on the machine runs: a leftover one is ours. */
const MARKER = '417.25';

interface ProcEntry {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
}

function processes(): ProcEntry[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const status = readFileSync(`/proc/${name}/status`, 'utf8');
        const field = (key: string) => /^(\S+)/.exec(status.split('\n').find((line) => line.startsWith(`${key}:`))!.slice(key.length + 1).trim())![1];
        const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
        return [{ pid: Number(name), ppid: Number(field('PPid')), state: field('State'), cmdline }];
      } catch {
        return []; // gone while we looked
      }
    });
}

describe('runtime process hygiene (real process)', () => {
  const fleet = useFleet({ users: { alice: 'alice@procs.test' }, devices: { 'rt-procs': { owner: 'alice', runtime: true } } });

  it(`leaves no zombie and no stray process after ${EXECS} execs`, async () => {
    const alice = fleet.user('alice');
    const runtime = fleet.device('rt-procs').runtime!;

    let next = 0;
    const failures: unknown[] = [];
    const worker = async () => {
      while (next < EXECS) {
        const i = next++;
        // Every tenth command leaves a background child in its process group.
        const command = i % 10 === 0 ? ['sh', '-c', `sleep ${MARKER} & echo ${i}`] : ['echo', String(i)];
        const answer = await attemptOf(alice.run('device_exec', { device: 'rt-procs', command, timeout_secs: 30 }));
        const body = (answer.ok ? answer.result : {}) as { output?: string; exit_code?: number };
        if (!answer.ok || body.exit_code !== 0 || body.output !== `${i}\n`) failures.push({ i, answer });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(failures).toEqual([]);

    // What a finished command left in its group is stopped right after it (SIGTERM, SIGKILL 2 s
    // later): wait for that to settle, then nothing of ours may remain.
    let children: ProcEntry[] = [];
    let strays: ProcEntry[] = [];
    const settled = () => {
      const all = processes();
      children = all.filter((p) => p.ppid === runtime.pid);
      strays = all.filter((p) => p.cmdline.includes(`sleep ${MARKER}`));
      return children.length === 0 && strays.every((p) => p.state === 'Z');
    };
    // Past the deadline the expectations below say what was left.
    await eventually('the commands\' processes gone', settled, { timeoutMs: 20_000, intervalMs: 250 }).catch(() => undefined);
    expect(children).toEqual([]);
    // A background child's zombie belongs to whoever adopted it (PID 1 here, which may not reap);
    // what must not exist is a live one.
    expect(strays.filter((p) => p.state !== 'Z')).toEqual([]);
    expect(runtime.child.exitCode).toBeNull();
    // Bounds a hang only: the execs take ~20 s on an idle 2-core machine, over a minute loaded.
  }, 300_000);
});
