import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RuntimeLogger } from '../logging/runtime-logger';
import { replaceFileSync, unlinkQuietly } from '../supervisor/atomic-file';
import { currentBootId } from '../supervisor/runtime-lock';
import { groupMembers, procStat, stopGroup } from './group-stop';
import type { GroupRecorder } from './job-process';

interface GroupRecord {
  pgid: number;
  /** The leader's start time (/proc/<pid>/stat, clock ticks after boot). */
  start_ticks: number;
  boot_id: string | null;
  job?: string;
}

/** `<deployments>/groups`: one file per process group a job command leads. */
export function processGroupRecords(deploymentsDir: string): ProcessGroupRecords {
  return new ProcessGroupRecords(join(deploymentsDir, 'groups'));
}

/**
 * The process groups of the runtime's job commands, on disk (one small file each, written
 * atomically, 0600) from the moment a command starts until its group is gone, so that a runtime
 * killed with SIGKILL leaves a list of what it left running. The next runtime stops those
 * leftovers before it starts the jobs again: exactly one instance of each job runs (adopting
 * them is not possible: their output pipes and exit status belonged to the dead runtime).
 */
export class ProcessGroupRecords {
  constructor(readonly dir: string) {}

  record(pgid: number, job?: string): void {
    const stat = procStat(pgid);
    if (stat === undefined) return;
    const record: GroupRecord = { pgid, start_ticks: stat.startTicks, boot_id: currentBootId(), job };
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    replaceFileSync(this.path(pgid), `${JSON.stringify(record)}\n`);
  }

  forget(pgid: number): void {
    unlinkQuietly(this.path(pgid));
  }

  /** What a job's commands record themselves with. */
  recorderFor(job: string): GroupRecorder {
    return { record: (pgid) => this.record(pgid, job), forget: (pgid) => this.forget(pgid) };
  }

  /**
   * Stops every recorded group that is still the one recorded (same boot; its leader, or when the
   * leader is gone every member, started no earlier than the recorded leader did), SIGTERM then
   * SIGKILL after `graceMs`, and forgets all records. Resolves with the groups it stopped.
   */
  async stopLeftovers(graceMs: number, log: RuntimeLogger): Promise<GroupRecord[]> {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((name) => /^\d+\.json$/.test(name));
    } catch {
      return [];
    }
    const stopped: GroupRecord[] = [];
    await Promise.all(
      names.map(async (name) => {
        const record = this.read(join(this.dir, name));
        if (record && isStillOurs(record)) {
          log.warn('stopping a job process group left by an earlier runtime', { pgid: record.pgid, job: record.job });
          await stopGroup(record.pgid, graceMs);
          stopped.push(record);
        }
        unlinkQuietly(join(this.dir, name));
      }),
    );
    return stopped;
  }

  private read(path: string): GroupRecord | undefined {
    try {
      const record = JSON.parse(readFileSync(path, 'utf8')) as GroupRecord;
      return Number.isInteger(record.pgid) && record.pgid > 1 && Number.isFinite(record.start_ticks) ? record : undefined;
    } catch {
      return undefined;
    }
  }

  private path(pgid: number): string {
    return join(this.dir, `${pgid}.json`);
  }
}

/**
 * A pid (and so a pgid) is not reused while its group has a member, and every member of our
 * group started after its leader; a group that does not fit is another program's.
 */
function isStillOurs(record: GroupRecord): boolean {
  const boot = currentBootId();
  if (record.boot_id === null || boot === null || record.boot_id !== boot) return false;
  const members = groupMembers(record.pgid);
  if (members === undefined || members.length === 0) return false;
  const leader = members.find((member) => member.pid === record.pgid);
  if (leader) return leader.startTicks === record.start_ticks;
  return members.every((member) => member.startTicks >= record.start_ticks);
}
