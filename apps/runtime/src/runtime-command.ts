import { parseArgs } from 'node:util';
import { clearDeviceCredentials, ConfigError, credentialsFilePath, CredentialsFileError } from '@svc/common';
import { loadRuntimeConfig, RunFlags } from './config/runtime-config';
import { LogFormat, RuntimeLogger } from './logging/runtime-logger';
import { EXIT_CODES, ExitCode, RuntimeExit } from './runtime-exit';
import { runDaemon, RuntimeIo } from './runtime-daemon';

type Env = Record<string, string | undefined>;

export const RUN_USAGE = `Usage: svc runtime run [options]

Registers this device (once), then keeps its tunnel to the server open until SIGTERM/SIGINT.

Options:
  --server <url>             server address (SVC_SERVER_URL)
  --owner <scope>            owner to request: user:<email> or org:<org_id> (OWNER_REFERENCE)
  --device-id <id>           device id to register (default: host name + machine-id digest)
  --name <name>              display name to register with (default: the host name)
  --ca <file>                CA certificate that signed the server's tunnel certificate (SVC_CA_FILE)
  --pin sha256:<hex>         pinned tunnel certificate fingerprint (SVC_SERVER_FINGERPRINT)
  --tunnel <host:port>       tunnel address, instead of asking the server (GET /auth/config)
  --transport <mode>         auto (QUIC, else TLS over TCP), quic or tcp (SVC_TUNNEL_TRANSPORT)
  --quic-probe-interval <dur>  auto mode: how often to retry QUIC while on TCP, e.g. 60s (SVC_QUIC_PROBE_INTERVAL)
  --quic-near-rtt <dur>      auto mode: TCP to a server whose QUIC round trip is below this;
                             0 or off: QUIC at any distance (SVC_QUIC_NEAR_RTT; default 2ms)
  --docker-socket <path>     container engine socket for docker_exec (SVC_DOCKER_SOCKET; default:
                             /var/run/docker.sock, else podman's rootless or system socket)
  --image-update-interval <dur>  how often containers labelled io.svc.update=true or
                             com.centurylinklabs.watchtower.enable=true are updated to a newer
                             image, e.g. 5m; 0 or off: never (SVC_IMAGE_UPDATE_INTERVAL; default 5m)
  --poll-interval <dur>      approval polling interval, e.g. 10s (SVC_REGISTRATION_POLL_INTERVAL)
  --approval-timeout <dur>   how long to wait for approval, e.g. 60m (SVC_APPROVAL_TIMEOUT)
  --reregister               register again when the server refuses the saved key
  --log-level <level>        error, warn, info, debug or trace (RUST_LOG)

Exit codes: 0 stopped by a signal · 1 failed (rejected, not approved in time) · 2 bad usage or
configuration · 3 API key refused by the server · 4 another runtime is running.`;

export const RUN_OPTIONS = {
  server: { type: 'string' },
  owner: { type: 'string' },
  'device-id': { type: 'string' },
  name: { type: 'string' },
  ca: { type: 'string' },
  pin: { type: 'string' },
  tunnel: { type: 'string' },
  transport: { type: 'string' },
  'quic-probe-interval': { type: 'string' },
  'quic-near-rtt': { type: 'string' },
  'docker-socket': { type: 'string' },
  'image-update-interval': { type: 'string' },
  'poll-interval': { type: 'string' },
  'approval-timeout': { type: 'string' },
  reregister: { type: 'boolean' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const STANDARD_IO: RuntimeIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };

/**
 * `svc runtime run [flags]` as a function: the CLI's command and apps/runtime/src/main.ts both
 * call it. Stops cleanly on SIGTERM/SIGINT; resolves with the exit code and never exits itself.
 */
export async function runRuntime(argv: string[], env: Env = process.env, io: RuntimeIo = STANDARD_IO): Promise<ExitCode> {
  let flags: RunFlags & { help?: boolean };
  try {
    flags = parseArgs({ args: argv, options: RUN_OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (error) {
    return usageError(io, (error as Error).message, RUN_USAGE);
  }
  if (flags.help) {
    io.stdout.write(`${RUN_USAGE}\n`);
    return EXIT_CODES.ok;
  }
  let config;
  try {
    config = loadRuntimeConfig(flags, env);
  } catch (error) {
    return usageError(io, (error as Error).message, 'Run "svc runtime run --help" for the options.');
  }
  const log = new RuntimeLogger(config.logLevel, (line) => io.stderr.write(line), {}, logFormat(io, env));
  const controller = new AbortController();
  const stop = (signal: NodeJS.Signals) => {
    if (!controller.signal.aborted) log.info('stopping', { signal });
    controller.abort();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    return await runDaemon(config, io, log, controller.signal);
  } catch (error) {
    return failure(io, log, error);
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
}

export const LOGOUT_USAGE = `Usage: svc runtime logout

Removes this device's credentials (API key, identity key, device id) from the credentials file;
the CLI's login stays. The device must be registered and approved again afterwards.`;

/** `svc runtime logout`: clears only `device_credentials`. */
export async function logoutRuntime(argv: string[], env: Env = process.env, io: RuntimeIo = STANDARD_IO): Promise<ExitCode> {
  try {
    if (parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } }, strict: true }).values.help) {
      io.stdout.write(`${LOGOUT_USAGE}\n`);
      return EXIT_CODES.ok;
    }
  } catch (error) {
    return usageError(io, (error as Error).message, LOGOUT_USAGE);
  }
  const path = credentialsFilePath(env);
  try {
    const removed = clearDeviceCredentials(path);
    io.stdout.write(removed ? `Device credentials removed from ${path}\n` : `No device credentials in ${path}\n`);
    if (env.SVC_API_KEY) io.stdout.write('SVC_API_KEY is still set in this environment and still used by the runtime.\n');
    return EXIT_CODES.ok;
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n`);
    return error instanceof CredentialsFileError ? EXIT_CODES.usage : EXIT_CODES.failed;
  }
}

/** Readable lines for a person at a terminal, JSON lines for journald and everything else. */
function logFormat(io: RuntimeIo, env: Env): LogFormat {
  if ((io.stderr as { isTTY?: boolean }).isTTY !== true) return { style: 'json' };
  return { style: 'pretty', color: !env.NO_COLOR && env.TERM !== 'dumb' };
}

function usageError(io: RuntimeIo, message: string, hint: string): ExitCode {
  io.stderr.write(`${message}\n${hint}\n`);
  return EXIT_CODES.usage;
}

/** Expected stops print one clear line; anything else is logged with its stack. */
function failure(io: RuntimeIo, log: RuntimeLogger, error: unknown): ExitCode {
  if (error instanceof RuntimeExit) {
    io.stderr.write(`${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof CredentialsFileError || error instanceof ConfigError) {
    io.stderr.write(`${error.message}\n`);
    return EXIT_CODES.usage;
  }
  log.error('runtime failed', { error: (error as Error).stack ?? String(error) });
  io.stderr.write(`The runtime failed: ${(error as Error).message}\n`);
  return EXIT_CODES.failed;
}
