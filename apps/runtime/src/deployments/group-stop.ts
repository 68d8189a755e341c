import { readdirSync, readFileSync } from 'node:fs';
import { groupAlive, signalGroup } from '../supervisor/process-group';

const POLL_MS = 50;
/** After SIGKILL the kernel needs a moment; a group still there after this is reported, not awaited. */
const AFTER_KILL_WAIT_MS = 2000;

/**
 * Whether any process of the group still runs. Zombies do not count: a process whose parent
 * died is reaped by PID 1, and where PID 1 is no init (a container, a micro-VM) it never is,
 * yet `kill(-pgid, 0)` keeps finding it. Reads /proc where there is one.
 */
export function groupRunning(pgid: number): boolean {
  if (!groupAlive(pgid)) return false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  return entries.some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    const stat = procStat(Number(entry));
    return stat !== undefined && stat.pgid === pgid && stat.state !== 'Z' && stat.state !== 'X';
  });
}

/** The live (not zombie) processes of a group with their start times; undefined where there is no /proc. */
export function groupMembers(pgid: number): { pid: number; startTicks: number }[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const members: { pid: number; startTicks: number }[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat && stat.pgid === pgid && stat.state !== 'Z' && stat.state !== 'X') members.push({ pid: Number(entry), startTicks: stat.startTicks });
  }
  return members;
}

/**
 * State, process group and start time (clock ticks after boot: with the boot id, what tells a
 * process from a later one that got the same pid) of a process, from /proc/<pid>/stat (the
 * command name may hold spaces and parentheses).
 */
export function procStat(pid: number): { state: string; pgid: number; startTicks: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], pgid: Number(fields[2]), startTicks: Number(fields[19]) };
  } catch {
    return undefined;
  }
}

/**
 * SIGTERM to the group, SIGKILL to whatever is left after `graceMs`; resolves once nothing of the
 * group runs any more (or, should the kernel be slow, shortly after the SIGKILL).
 */
export async function stopGroup(pgid: number, graceMs: number): Promise<void> {
  if (!groupRunning(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  if (await waitGone(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await waitGone(pgid, AFTER_KILL_WAIT_MS);
}

async function waitGone(pgid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (!groupRunning(pgid)) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
