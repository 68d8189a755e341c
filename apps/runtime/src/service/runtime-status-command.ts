import { existsSync, readFileSync } from 'node:fs';
import { configDirectory, credentialsFilePath, readCredentials } from '@svc/common';
import { EXIT_CODES, ExitCode } from '../runtime-exit';
import type { RuntimeIo } from '../runtime-daemon';
import { readRunningRuntime, RunningRuntime } from '../supervisor/runtime-status';
import type { Systemd } from './systemd-unit';
import { UNIT_NAME } from './systemd-unit';
import { environmentOf, parseUnit } from './systemd-words';
import { lookupAccount, unitConfigDir } from './unit-account';

type Env = Record<string, string | undefined>;

interface UnitState {
  installed: boolean;
  path: string;
  enabled?: string;
  active?: string;
}

/**
 * `svc runtime status`: the runtime that runs on this configuration directory (the lock's holder
 * and what it publishes next to the lock), the unit, and the registration. Exit 0 while a
 * runtime runs, whether a shell started it or systemd (whose unit may run it as another account).
 */
export function runtimeStatus(system: Systemd, env: Env, io: RuntimeIo, json: boolean): ExitCode {
  const installed = existsSync(system.unitPath);
  const unit: UnitState = { installed, path: system.unitPath };
  let unitActive = false;
  if (installed) {
    const enabled = system.systemctl(['is-enabled', UNIT_NAME]);
    const active = system.systemctl(['is-active', UNIT_NAME]);
    unit.enabled = enabled.error ?? enabled.stdout;
    unit.active = active.error ?? active.stdout;
    unitActive = active.status === 0;
  }
  const dir = env.SVC_CONFIG_DIR ?? (installed ? unitConfigDirOf(system.unitPath) : undefined) ?? configDirectory(env);
  const runtime = readRunningRuntime(dir);
  const credentialsPath = credentialsFilePath({ SVC_CONFIG_DIR: dir });
  const registration = readRegistration(credentialsPath);
  if (json) io.stdout.write(`${JSON.stringify({ runtime, unit, registration: { ...registration, credentials: credentialsPath } }, null, 2)}\n`);
  else io.stdout.write(humanStatus(runtime, unit, registration.text, credentialsPath));
  return runtime.running || unitActive ? EXIT_CODES.ok : EXIT_CODES.failed;
}

/** The configuration directory of the unit's service: its SVC_CONFIG_DIR, else that of its User= account (root without one). */
function unitConfigDirOf(unitPath: string): string | undefined {
  try {
    const unit = parseUnit(readFileSync(unitPath, 'utf8'));
    return unitConfigDir(environmentOf(unit.get('Service.Environment') ?? []), lookupAccount(unit.get('Service.User')?.at(-1)));
  } catch {
    return undefined;
  }
}

/** What the credentials file says about this device's registration (never its key). */
export function readRegistration(path: string): { state: string; device_id?: string; request_id?: string; text: string } {
  try {
    const credentials = readCredentials(path).device_credentials ?? {};
    if (credentials.api_key) return { state: 'registered', device_id: credentials.device_id, text: `registered as ${credentials.device_id ?? '(unknown id)'}` };
    if (credentials.request_id) return { state: 'pending', request_id: credentials.request_id, text: `registration pending (${credentials.request_id})` };
    return { state: 'not_registered', text: 'not registered' };
  } catch (error) {
    return { state: 'unreadable', text: `credentials unreadable: ${(error as Error).message}` };
  }
}

function humanStatus(runtime: RunningRuntime | { running: false }, unit: UnitState, registration: string, credentialsPath: string): string {
  const lines: string[] = [];
  if (!runtime.running) lines.push('runtime:  not running');
  else {
    const status = runtime.status;
    lines.push(`runtime:  running (pid ${runtime.pid}${runtime.uptime_secs === undefined ? '' : `, up ${duration(runtime.uptime_secs)}`})`);
    if (status) {
      const link = status.state === 'online' ? `online over ${status.carrier} since ${status.connected_at}` : status.state;
      lines.push(`state:    ${link}`);
      if (status.state === 'online' && status.carrier_note) lines.push(`carrier:  ${status.carrier_note}`);
      lines.push(`server:   ${status.server}`);
      if (status.device_id) lines.push(`device:   ${status.device_id}`);
    }
  }
  lines.push(`unit:     ${unit.installed ? unit.path : 'not installed (svc runtime enable)'}`);
  if (unit.installed) lines.push(`enabled:  ${unit.enabled}`, `active:   ${unit.active}`);
  lines.push(`registration: ${registration} (${credentialsPath})`, '');
  return lines.join('\n');
}

/** 3725 → "1h 2m 5s". */
function duration(secs: number): string {
  const parts = [[Math.floor(secs / 86400), 'd'], [Math.floor(secs / 3600) % 24, 'h'], [Math.floor(secs / 60) % 60, 'm'], [secs % 60, 's']] as const;
  const shown = parts.filter(([value], index) => value > 0 || index === parts.length - 1);
  return shown.map(([value, unit]) => `${value}${unit}`).join(' ');
}
