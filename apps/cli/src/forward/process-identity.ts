import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Windows has neither /proc nor `ps -o lstart`: a session there is known by its pid alone. */
export const CAN_IDENTIFY_PROCESSES = process.platform !== 'win32';

/**
 * What tells a process from a later one that got the same pid: on Linux the boot id and the start
 * time in clock ticks since boot (/proc/<pid>/stat, field 22), elsewhere the start time `ps`
 * prints. Undefined when there is no such process (or no way to tell).
 */
export function processStart(pid: number): string | undefined {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Field 2, the command name, is in parentheses and may hold spaces or ")": count from the last ")".
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      return `${bootId}:${fields[22 - 3]}`;
    } catch {
      return undefined;
    }
  }
  if (!CAN_IDENTIFY_PROCESSES) return undefined;
  const ps = spawnSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' });
  const started = ps.status === 0 ? ps.stdout.trim() : '';
  return started === '' ? undefined : started;
}
