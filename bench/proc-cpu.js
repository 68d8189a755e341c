/**
 * CPU time of processes, from /proc (Linux), for "ms of CPU per MB moved" figures:
 *   treeCpuMs(pid): the process and every descendant alive now, plus the children they reaped
 *                   (cutime/cstime), so forked sessions (sshd) count too;
 *   reapedChildrenCpuMs(): this process's reaped children (a `svc cp` or `scp` run to completion).
 * Take one reading before and one after the transfer; the difference is the cost.
 */
const { readdirSync, readFileSync } = require('node:fs');

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/** [pid, ppid, utime, stime, cutime, cstime] of one /proc/<pid>/stat, or null once it is gone. */
function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): ppid is field 4, utime..cstime fields 14..17.
    return { pid: Number(pid), ppid: Number(fields[1]), own: Number(fields[11]) + Number(fields[12]), children: Number(fields[13]) + Number(fields[14]) };
  } catch {
    return null;
  }
}

function treeCpuMs(root) {
  const all = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(stat).filter(Boolean);
  const kids = new Map();
  for (const p of all) kids.set(p.ppid, [...(kids.get(p.ppid) ?? []), p]);
  let ticks = 0;
  const rootStat = all.find((p) => p.pid === root);
  if (!rootStat) return 0;
  const queue = [rootStat];
  while (queue.length > 0) {
    const p = queue.pop();
    ticks += p.own + p.children;
    queue.push(...(kids.get(p.pid) ?? []));
  }
  return ticks * TICK_MS;
}

function reapedChildrenCpuMs() {
  return stat('self').children * TICK_MS;
}

module.exports = { treeCpuMs, reapedChildrenCpuMs };
