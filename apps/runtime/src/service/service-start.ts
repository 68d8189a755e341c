import { setTimeout as delay } from 'node:timers/promises';
import { describeExitCode, PERMANENT_EXIT_CODES } from '../runtime-exit';
import { readRunningRuntime, RunningRuntime } from '../supervisor/runtime-status';
import { readRegistration } from './runtime-status-command';
import { RESTART, Systemd, UNIT_NAME } from './systemd-unit';

const PROPERTIES = ['ActiveState', 'SubState', 'Result', 'MainPID', 'ExecMainCode', 'ExecMainStatus', 'NRestarts'] as const;
export type UnitProperties = Partial<Record<(typeof PROPERTIES)[number], string>>;

/** What `systemctl show` says about the unit now; empty when systemctl cannot say. */
export function showUnit(system: Systemd): UnitProperties {
  const shown = system.systemctl(['show', `--property=${PROPERTIES.join(',')}`, UNIT_NAME]);
  if (shown.status !== 0) return {};
  const properties: Record<string, string> = {};
  for (const line of shown.stdout.split('\n')) {
    const equals = line.indexOf('=');
    if (equals > 0) properties[line.slice(0, equals)] = line.slice(equals + 1);
  }
  return properties;
}

/** The unit's main process, when systemd runs one (0 and absent are none). */
export function mainPid(unit: UnitProperties): number | undefined {
  const pid = Number(unit.MainPID);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Where a just-started unit stands. `running`: its process holds the runtime lock and is online,
 * or is waiting for its registration to be approved (nothing left that could end it at once);
 * `up`: it holds the lock but has not got that far; `failed`: the process ended (systemd shows it
 * failed, about to restart, or restarted); `starting`: none of these yet.
 */
export type StartState =
  | { state: 'running' | 'up'; pid: number; detail: string }
  | { state: 'failed'; detail: string }
  | { state: 'starting'; detail: string };

export function startState(unit: UnitProperties, runtime: RunningRuntime | { running: false }, registration: { state: string; request_id?: string }): StartState {
  if (unit.ActiveState === 'failed' || unit.SubState === 'auto-restart' || Number(unit.NRestarts) > 0) return { state: 'failed', detail: howItEnded(unit) };
  const pid = mainPid(unit);
  if (unit.ActiveState !== 'active' || pid === undefined || !runtime.running || runtime.pid !== pid) {
    return { state: 'starting', detail: `systemd: ${unit.ActiveState ?? 'unknown'}${unit.SubState ? `/${unit.SubState}` : ''}` };
  }
  const status = runtime.status;
  if (status?.state === 'online') return { state: 'running', pid, detail: `online over ${status.carrier}` };
  if (status?.state === 'registering' && registration.state === 'pending') {
    return { state: 'running', pid, detail: `waiting for approval: svc devices approve ${registration.request_id}` };
  }
  return { state: 'up', pid, detail: `not online yet: ${status?.state ?? 'starting'}${status?.server ? ` (${status.server})` : ''}` };
}

function howItEnded(unit: UnitProperties): string {
  if (unit.Result === 'start-limit-hit') return `it failed ${RESTART.limitBurst} times within ${RESTART.limitIntervalSecs} s and systemd stopped restarting it`;
  const status = Number(unit.ExecMainStatus);
  // ExecMainCode is the CLD_* code: 1 exited, 2 killed, 3 dumped core.
  const ended = unit.ExecMainCode === '1' ? `it exited with status ${describeExitCode(status)}` : unit.ExecMainCode === '2' || unit.ExecMainCode === '3' ? `it was killed by signal ${status}` : 'it stopped';
  if (unit.ExecMainCode === '1' && (PERMANENT_EXIT_CODES as readonly number[]).includes(status)) return `${ended}; systemd does not restart it after that`;
  if (unit.ActiveState === 'failed') return ended;
  return `${ended}; systemd restarts it every ${RESTART.delaySecs} s, up to ${RESTART.limitBurst} times within ${RESTART.limitIntervalSecs} s`;
}

export interface StartWait {
  /** How long `enable` waits for the runtime to reach `running`. */
  timeoutMs: number;
  intervalMs: number;
}

export const START_WAIT: StartWait = { timeoutMs: 30_000, intervalMs: 250 };

/** Polls the unit and the runtime of `configDir` until the runtime runs, its process ended, or time is up. */
export async function awaitStart(system: Systemd, configDir: string | undefined, credentialsPath: string | undefined, wait: StartWait): Promise<StartState> {
  const deadline = Date.now() + wait.timeoutMs;
  for (;;) {
    const unit = showUnit(system);
    const runtime = configDir === undefined ? { running: false as const } : readRunningRuntime(configDir);
    const found = startState(unit, runtime, credentialsPath === undefined ? { state: 'unknown' } : readRegistration(credentialsPath));
    if (found.state === 'running' || found.state === 'failed' || Date.now() >= deadline) return found;
    await delay(wait.intervalMs);
  }
}
