import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CLIENT_VARIABLES, credentialsFilePath } from '@svc/common';
import { loadRuntimeConfig, RunFlags } from '../config/runtime-config';
import { RUNTIME_VARIABLES } from '../config/runtime-variables';
import { RUN_OPTIONS } from '../runtime-command';
import { describeExitCode, EXIT_CODES, ExitCode, PERMANENT_EXIT_CODES } from '../runtime-exit';
import type { RuntimeIo } from '../runtime-daemon';
import { readRunningRuntime } from '../supervisor/runtime-status';
import { runtimeStatus } from './runtime-status-command';
import { awaitStart, mainPid, showUnit, START_WAIT, StartWait } from './service-start';
import { renderUnit, RESTART, Systemd, UNIT_NAME } from './systemd-unit';
import { Account, configDirProblem, lookupAccount, unitConfigDir } from './unit-account';

type Env = Record<string, string | undefined>;

export const SERVICE_USAGE = `Usage: svc runtime enable [run options] [--user <account>] [--force]
       svc runtime disable
       svc runtime status [--json]

enable   installs ${UNIT_NAME} (a systemd unit running "svc runtime run" with the options given
         here), then enables and (re)starts it, so the runtime survives reboots, and waits until
         its runtime is online or waiting for approval. Needs root. It refuses, installing
         nothing, when --user has no account, when that account could not create or write its
         configuration directory, or when another runtime already runs on that directory
         (--force installs anyway). The unit restarts the runtime ${RESTART.delaySecs} s after it stops, but not
         after exit ${PERMANENT_EXIT_CODES.join(', ')} (configuration, key refused, already running), and gives up
         after ${RESTART.limitBurst} starts within ${RESTART.limitIntervalSecs} s.
disable  stops and disables the unit and removes it. Needs root.
status   the runtime running on this device (pid, device, server, carrier, uptime), the unit's
         state and this device's registration; --json prints the same as JSON.

Variables: SVC_SYSTEMD_UNIT_DIR (default /etc/systemd/system), SVC_SYSTEMCTL (default systemctl).
Exit codes: 0 done (status: a runtime or the unit is running) · 1 failed (enable: refused, or
the runtime did not come up; status: neither runs) · 2 bad usage.`;

/** The run options `enable` writes into the unit, but --reregister: a service must not re-register on its own. */
const { reregister: _reregister, ...UNIT_RUN_OPTIONS } = RUN_OPTIONS;
const ENABLE_OPTIONS = { ...UNIT_RUN_OPTIONS, user: { type: 'string' }, force: { type: 'boolean' } } as const;
type EnableFlags = RunFlags & { user?: string; force?: boolean; help?: boolean };
const STATUS_OPTIONS = { help: ENABLE_OPTIONS.help, json: { type: 'boolean' } } as const;
/** Options naming files: made absolute, since the service does not start in this directory. */
const PATH_OPTIONS = new Set(['ca', 'docker-socket']);
/**
 * The variables `run` reads in place of a flag: what `enable` was given this way is written into
 * the unit as the flag, since the service does not see this shell's environment. SVC_API_KEY is
 * left out on purpose: a unit is world-readable.
 */
const FLAG_VARIABLES: Partial<Record<keyof RunFlags, string>> = {
  server: CLIENT_VARIABLES.serverUrl.name,
  owner: CLIENT_VARIABLES.ownerReference.name,
  ca: RUNTIME_VARIABLES.caFile.name,
  pin: RUNTIME_VARIABLES.pin.name,
  transport: RUNTIME_VARIABLES.transport.name,
  'quic-probe-interval': RUNTIME_VARIABLES.quicProbeInterval.name,
  'quic-near-rtt': RUNTIME_VARIABLES.quicNearRtt.name,
  'docker-socket': RUNTIME_VARIABLES.dockerSocket.name,
  'image-update-interval': RUNTIME_VARIABLES.imageUpdateInterval.name,
  'poll-interval': RUNTIME_VARIABLES.pollInterval.name,
  'approval-timeout': RUNTIME_VARIABLES.approvalTimeout.name,
  'log-level': RUNTIME_VARIABLES.logLevel.name,
};

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
export async function serviceCommand(command: 'enable' | 'disable' | 'status', argv: string[], env: Env, io: RuntimeIo, wait: StartWait = START_WAIT): Promise<ExitCode> {
  let values: EnableFlags & { json?: boolean };
  try {
    const options = command === 'enable' ? ENABLE_OPTIONS : command === 'status' ? STATUS_OPTIONS : { help: ENABLE_OPTIONS.help };
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as EnableFlags & { json?: boolean };
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${SERVICE_USAGE}\n`);
    return EXIT_CODES.usage;
  }
  if (values.help) {
    io.stdout.write(`${SERVICE_USAGE}\n`);
    return EXIT_CODES.ok;
  }
  const system = systemd(env);
  if (command === 'enable') return enable(values, env, system, io, wait);
  if (command === 'disable') return disable(system, io);
  return runtimeStatus(system, env, io, values.json === true);
}

async function enable(values: EnableFlags, env: Env, system: Systemd, io: RuntimeIo, wait: StartWait): Promise<ExitCode> {
  const { user, force, help: _help, ...given } = values;
  if (user !== undefined && !/^[a-z_][a-z0-9_-]{0,31}$/.test(user)) return usage(io, `--user: "${user}" is not an account name`);
  const runFlags: Record<string, string> = {};
  for (const [name, variable] of Object.entries(FLAG_VARIABLES)) {
    const value = (given as Record<string, unknown>)[name] ?? (variable === undefined ? undefined : env[variable]);
    if (typeof value === 'string') runFlags[name] = PATH_OPTIONS.has(name) && !isAbsolute(value) ? resolve(value) : value;
  }
  for (const [name, value] of Object.entries(given)) if (typeof value === 'string' && runFlags[name] === undefined) runFlags[name] = value;
  const environment: Record<string, string> = {};
  if (env.SVC_CONFIG_DIR) environment.SVC_CONFIG_DIR = resolve(env.SVC_CONFIG_DIR);
  const account = lookupAccount(user);
  const configDir = unitConfigDir(environment, account);
  try {
    // The same checks `run` makes, with only what the unit will hold, now rather than in the journal after a reboot.
    loadRuntimeConfig(runFlags, { HOME: account?.home ?? env.HOME, SVC_CONFIG_DIR: environment.SVC_CONFIG_DIR });
  } catch (error) {
    return usage(io, (error as Error).message);
  }
  const problem = unitProblem(system, user, account, configDir);
  if (problem !== undefined) {
    if (!force) return failed(io, `${problem}.\nNothing was installed; --force installs the unit anyway.`);
    io.stderr.write(`Warning: ${problem} (installing anyway: --force).\n`);
  }
  const flags = Object.entries(runFlags).flatMap(([name, value]) => [`--${name}`, value]);
  const unit = renderUnit({ execStart: [process.execPath, runtimeEntry(), 'run', ...flags], user, environment });
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
  // restart, not start: a unit that already runs takes the options just written.
  for (const args of [['daemon-reload'], ['enable', UNIT_NAME], ['restart', UNIT_NAME]]) {
    const run = system.systemctl(args);
    if (run.status !== 0) return failed(io, `systemctl ${args.join(' ')} failed: ${run.error ?? run.stdout}`);
  }
  const logs = `Logs: journalctl -u ${UNIT_NAME}`;
  const started = await awaitStart(system, configDir, configDir === undefined ? undefined : credentialsFilePath({ SVC_CONFIG_DIR: configDir }), wait);
  if (started.state === 'failed') return failed(io, `${UNIT_NAME} is enabled, but the runtime did not stay up: ${started.detail}. ${logs}`);
  if (started.state === 'starting') {
    return failed(io, `${UNIT_NAME} is enabled, but no runtime came up within ${Math.round(wait.timeoutMs / 1000)} s (${started.detail}). ${logs}; svc runtime status`);
  }
  io.stdout.write(`${UNIT_NAME} enabled and running (pid ${started.pid}, ${started.detail}); it starts again at every boot. ${logs}\n`);
  return EXIT_CODES.ok;
}

/**
 * What would keep the unit's runtime from starting, found before anything is written: an account
 * systemd cannot run it as (217/USER), a configuration directory it may not create or write
 * (EACCES at every start), a runtime already running on that directory outside this unit (exit 4).
 */
function unitProblem(system: Systemd, user: string | undefined, account: Account | undefined, configDir: string | undefined): string | undefined {
  if (account === undefined) return user === undefined ? 'no root account in /etc/passwd' : `--user ${user}: no such account in /etc/passwd (systemd would fail with 217/USER)`;
  if (configDir === undefined) return undefined;
  const denied = configDirProblem(configDir, account);
  if (denied !== undefined) return `the runtime runs as ${account.name} and could not use its configuration directory ${configDir}: ${denied}; choose another --user, or set SVC_CONFIG_DIR to a directory ${account.name} may write`;
  const running = readRunningRuntime(configDir);
  if (running.running && running.pid !== mainPid(showUnit(system))) {
    return `a runtime is already running on ${configDir} (pid ${running.pid}), not started by ${UNIT_NAME}: the unit's runtime would exit ${describeExitCode(EXIT_CODES.alreadyRunning)}. Stop it first (Ctrl-C where it runs, or kill ${running.pid}), then run enable again`;
  }
  return undefined;
}

/**
 * The runtime's own entry point (apps/runtime/dist/main.js), whoever runs `enable`: `svc`'s
 * entry would need `runtime run`, and the unit must not depend on the CLI at all.
 */
function runtimeEntry(): string {
  return realpathSync(require.resolve('../main'));
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

function usage(io: RuntimeIo, message: string): ExitCode {
  io.stderr.write(`${message}\n`);
  return EXIT_CODES.usage;
}

function failed(io: RuntimeIo, message: string): ExitCode {
  io.stderr.write(`${message}\n`);
  return EXIT_CODES.failed;
}
