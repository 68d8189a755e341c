import { PERMANENT_EXIT_CODES } from '../runtime-exit';

/** The systemd unit `svc runtime enable` installs; one per device. */
export const UNIT_NAME = 'svc-runtime.service';

/**
 * The unit's restart policy, which `enable` also uses to say what happens next. Restart=always
 * with a short delay keeps the daemon up across crashes (its own reconnects are jittered, and a
 * server that cannot be reached is retried inside the runtime, never by exiting), except on
 * PERMANENT_EXIT_CODES. A runtime that still dies 3 times within 60 s (a crash at start) is left
 * failed, as HashiCorp Vault's packaged unit does; systemd's default (5 in 10 s) can never be met
 * 5 s apart, which is how an earlier unit restarted forever.
 */
export const RESTART = { delaySecs: 5, limitIntervalSecs: 60, limitBurst: 3 } as const;

export interface UnitOptions {
  /** Absolute node binary and the runtime's own entry (main.js), then `run` and its flags. */
  execStart: string[];
  /** Run as this account instead of root (its home holds the device credentials). */
  user?: string;
  /** Variables the daemon must see as `enable` saw them (e.g. SVC_CONFIG_DIR). */
  environment: Record<string, string>;
}

/**
 * Restarts as RESTART says; KillMode=control-group stops every command it started, which a
 * SIGKILLed Node process cannot do itself; network-online so the first dial does not race DHCP.
 * StartLimit* belong in [Unit] since systemd 230 (systemd-analyze verify warns elsewhere).
 */
export function renderUnit(options: UnitOptions): string {
  const lines = [
    '[Unit]',
    'Description=svc device runtime (tunnel to the svc server)',
    'Documentation=https://github.com/svc/svc/blob/main/docs/architecture.md',
    'Wants=network-online.target',
    'After=network-online.target',
    `StartLimitIntervalSec=${RESTART.limitIntervalSecs}`,
    `StartLimitBurst=${RESTART.limitBurst}`,
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${options.execStart.map(quoteArgument).join(' ')}`,
    ...(options.user ? [`User=${options.user}`] : []),
    ...Object.entries(options.environment).map(([name, value]) => `Environment=${quoteAssignment(name, value)}`),
    'Restart=always',
    `RestartSec=${RESTART.delaySecs}`,
    `RestartPreventExitStatus=${PERMANENT_EXIT_CODES.join(' ')}`,
    'KillMode=control-group',
    'TimeoutStopSec=15',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ];
  return lines.join('\n');
}

/**
 * One argument as systemd reads it: double-quoted, with `\\` and `"` escaped, `%` doubled
 * (specifiers) and `$` doubled (variable expansion), so any path or URL arrives unchanged.
 * Newlines and other control characters cannot be expressed and are refused.
 */
export function quoteArgument(value: string): string {
  return quoteWord(value).replace(/\$/g, '$$$$');
}

/** One `NAME=value` of Environment=, which systemd does not expand variables in: only `$` stays as it is. */
export function quoteAssignment(name: string, value: string): string {
  return quoteWord(`${name}=${value}`);
}

function quoteWord(value: string): string {
  if (/[\x00-\x1f\x7f]/.test(value)) throw new Error(`cannot put a control character into a systemd unit: ${JSON.stringify(value)}`);
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%')}"`;
}

/** The unit directory and systemctl, as `svc runtime enable/disable/status` use them. */
export interface Systemd {
  unitPath: string;
  systemctl(args: string[]): { status: number | null; stdout: string; error?: string };
}
