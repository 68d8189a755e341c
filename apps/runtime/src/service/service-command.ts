import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { credentialsFilePath, readCredentials } from '@svc/common';
import { loadRuntimeConfig, RunFlags } from '../config/runtime-config';
import { RUN_OPTIONS } from '../runtime-command';
import { EXIT_CODES, ExitCode } from '../runtime-exit';
import type { RuntimeIo } from '../runtime-daemon';
import { renderUnit, UNIT_NAME } from './systemd-unit';

type Env = Record<string, string | undefined>;

export const SERVICE_USAGE = `Usage: svc runtime enable [run options] [--user <account>]
       svc runtime disable
       svc runtime status

enable   installs ${UNIT_NAME} (a systemd unit running "svc runtime run" with the options given
         here), then enables and starts it, so the runtime survives reboots. Needs root.
disable  stops and disables the unit and removes it. Needs root.
status   the unit's state and this device's registration.

Variables: SVC_SYSTEMD_UNIT_DIR (default /etc/systemd/system), SVC_SYSTEMCTL (default systemctl).
Exit codes: 0 done (status: enabled and running) · 1 failed (status: not running) · 2 bad usage.`;

/** The run options `enable` writes into the unit, but --reregister: a service must not re-register on its own. */
const { reregister: _reregister, ...UNIT_RUN_OPTIONS } = RUN_OPTIONS;
const ENABLE_OPTIONS = { ...UNIT_RUN_OPTIONS, user: { type: 'string' } } as const;
/** Options naming files: made absolute, since the service does not start in this directory. */
const PATH_OPTIONS = new Set(['ca', 'docker-socket']);

interface Systemd {
  unitPath: string;
  systemctl(args: string[]): { status: number | null; stdout: string; error?: string };
}

function systemd(env: Env): Systemd {
  const unitDir = env.SVC_SYSTEMD_UNIT_DIR ?? '/etc/systemd/system';
  const binary = env.SVC_SYSTEMCTL ?? 'systemctl';
  return {
    unitPath: join(unitDir, UNIT_NAME),
    systemctl: (args) => {
      const run = spawnSync(binary, args, { encoding: 'utf8', timeout: 60_000 });
      if (run.error) return { status: null, stdout: '', error: (run.error as NodeJS.ErrnoException).code === 'ENOENT' ? `${binary} not found: this system does not run systemd` : run.error.message };
      return { status: run.status, stdout: `${run.stdout}${run.stderr}`.trim() };
    },
  };
}

/** `svc runtime enable|disable|status`. */
export async function serviceCommand(command: 'enable' | 'disable' | 'status', argv: string[], env: Env, io: RuntimeIo): Promise<ExitCode> {
  let values: RunFlags & { user?: string; help?: boolean };
  try {
    const options = command === 'enable' ? ENABLE_OPTIONS : { help: ENABLE_OPTIONS.help };
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as RunFlags & { user?: string; help?: boolean };
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${SERVICE_USAGE}\n`);
    return EXIT_CODES.usage;
  }
  if (values.help) {
    io.stdout.write(`${SERVICE_USAGE}\n`);
    return EXIT_CODES.ok;
  }
  const system = systemd(env);
  if (command === 'enable') return enable(values, env, system, io);
  if (command === 'disable') return disable(system, io);
  return status(system, env, io);
}

function enable(values: RunFlags & { user?: string }, env: Env, system: Systemd, io: RuntimeIo): ExitCode {
  const { user, help: _help, ...runFlags } = values as RunFlags & { user?: string; help?: boolean };
  if (user !== undefined && !/^[a-z_][a-z0-9_-]{0,31}$/.test(user)) return usage(io, `--user: "${user}" is not an account name`);
  const flags: string[] = [];
  for (const [name, value] of Object.entries(runFlags)) {
    if (typeof value !== 'string') continue;
    flags.push(`--${name}`, PATH_OPTIONS.has(name) && !isAbsolute(value) ? resolve(value) : value);
  }
  try {
    // The same checks `run` makes, now rather than in the journal after a reboot.
    loadRuntimeConfig(Object.fromEntries(Object.entries(runFlags).map(([k, v]) => [k, PATH_OPTIONS.has(k) && typeof v === 'string' ? resolve(v) : v])), env);
  } catch (error) {
    return usage(io, (error as Error).message);
  }
  const entry = realpathSync(process.argv[1]);
  const environment: Record<string, string> = {};
  if (env.SVC_CONFIG_DIR) environment.SVC_CONFIG_DIR = resolve(env.SVC_CONFIG_DIR);
  const unit = renderUnit({ execStart: [process.execPath, entry, 'run', ...flags], user, environment });
  const temporary = `${system.unitPath}.tmp-${process.pid}`;
  try {
    writeFileSync(temporary, unit, { mode: 0o644 });
    renameSync(temporary, system.unitPath);
  } catch (error) {
    rmSync(temporary, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    return failed(io, code === 'EACCES' || code === 'EPERM' ? `cannot write ${system.unitPath}: run as root (sudo svc runtime enable …)` : `cannot write ${system.unitPath}: ${(error as Error).message}`);
  }
  io.stdout.write(`Wrote ${system.unitPath}\n`);
  for (const args of [['daemon-reload'], ['enable', '--now', UNIT_NAME]]) {
    const run = system.systemctl(args);
    if (run.status !== 0) return failed(io, `systemctl ${args.join(' ')} failed: ${run.error ?? run.stdout}`);
  }
  io.stdout.write(`${UNIT_NAME} enabled and started; it starts again at every boot. Logs: journalctl -u ${UNIT_NAME}\n`);
  return EXIT_CODES.ok;
}

function disable(system: Systemd, io: RuntimeIo): ExitCode {
  if (!existsSync(system.unitPath)) {
    io.stdout.write(`${UNIT_NAME} is not installed (${system.unitPath})\n`);
    return EXIT_CODES.ok;
  }
  const stop = system.systemctl(['disable', '--now', UNIT_NAME]);
  if (stop.status !== 0) return failed(io, `systemctl disable --now ${UNIT_NAME} failed: ${stop.error ?? stop.stdout}`);
  try {
    rmSync(system.unitPath);
  } catch (error) {
    return failed(io, `cannot remove ${system.unitPath}: ${(error as Error).message}`);
  }
  system.systemctl(['daemon-reload']);
  io.stdout.write(`${UNIT_NAME} stopped, disabled and removed. The device keeps its credentials (svc runtime logout removes them).\n`);
  return EXIT_CODES.ok;
}

function status(system: Systemd, env: Env, io: RuntimeIo): ExitCode {
  const installed = existsSync(system.unitPath);
  const enabled = installed ? system.systemctl(['is-enabled', UNIT_NAME]) : undefined;
  const active = installed ? system.systemctl(['is-active', UNIT_NAME]) : undefined;
  const credentialsPath = credentialsFilePath(env);
  let device = 'not registered';
  try {
    const credentials = readCredentials(credentialsPath).device_credentials ?? {};
    if (credentials.api_key) device = `registered as ${credentials.device_id ?? '(unknown id)'}`;
    else if (credentials.request_id) device = `registration pending (${credentials.request_id})`;
  } catch (error) {
    device = `credentials unreadable: ${(error as Error).message}`;
  }
  io.stdout.write(
    [
      `unit:     ${installed ? system.unitPath : 'not installed (svc runtime enable)'}`,
      ...(installed ? [`enabled:  ${enabled!.error ?? enabled!.stdout}`, `active:   ${active!.error ?? active!.stdout}`] : []),
      `device:   ${device} (${credentialsPath})`,
      '',
    ].join('\n'),
  );
  return installed && active!.status === 0 ? EXIT_CODES.ok : EXIT_CODES.failed;
}

function usage(io: RuntimeIo, message: string): ExitCode {
  io.stderr.write(`${message}\n`);
  return EXIT_CODES.usage;
}

function failed(io: RuntimeIo, message: string): ExitCode {
  io.stderr.write(`${message}\n`);
  return EXIT_CODES.failed;
}
