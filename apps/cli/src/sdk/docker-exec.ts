import { spawn } from 'node:child_process';
import type { ClientHttp2Stream } from 'node:http2';
import { mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOperation, InvalidInputError, limitsOf, NotFoundError, OperationContract, OperationResults, ParamSpec, resetStream } from '@svc/common';
import type { DeviceStreams } from './device-streams';
import { LocalForwarder } from './local-forwarder';

/** docker_exec's default and range of timeout_secs, and its output cap per captured stream, from its catalog entry. */
const TIMEOUT: ParamSpec = (findOperation('docker_exec') as OperationContract).params.timeout_secs;
const DEFAULT_TIMEOUT_SECS = TIMEOUT.default as number;
const MAX_TIMEOUT_SECS = TIMEOUT.maximum!;
const MAX_OUTPUT_BYTES = limitsOf('docker_exec').outputCapBytes;
/** How long the probe stream may take to close by itself before it is reset. */
const PROBE_CLOSE_MS = 5_000;
/** After SIGTERM on timeout, the CLI gets this long before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** Variables that would point the CLI elsewhere than DOCKER_HOST. */
const CONFLICTING_ENV = ['DOCKER_CONTEXT', 'DOCKER_TLS', 'DOCKER_TLS_VERIFY', 'DOCKER_CERT_PATH'];

export interface DockerExecOptions {
  device: string;
  /** Arguments of the `docker` CLI, e.g. `['ps', '-a']`; long-running containers need `-d`. */
  args: string[];
  timeout_secs?: number;
  /** The CLI to run; `docker` from PATH by default. */
  dockerBinary?: string;
  /** Environment of the CLI (default: this process's); DOCKER_HOST is set, contexts removed. */
  env?: NodeJS.ProcessEnv;
  /**
   * `capture` (default, the MCP tool): stdout and stderr collected, each cut at MAX_OUTPUT_BYTES.
   * `inherit` (`svc docker`): the CLI runs on this process's own stdin, stdout and stderr, so its
   * output streams as produced and `docker run -i` reads the user's input; the result's stdout
   * and stderr are then empty.
   */
  io?: 'capture' | 'inherit';
  /** Per stream when captured (default 16 MiB, what an agent can use); `svc docker --json` keeps everything. */
  maxOutputBytes?: number;
}

/** docker_exec's result; a non-zero exit is data. `timed_out`: killed after `timeout_secs`. */
export type DockerExecResult = OperationResults['docker_exec'] & { timed_out: boolean };

/**
 * docker_exec: runs the local `docker` CLI against the device's container engine. A LocalForwarder
 * serves a private unix socket (a 0700 temp directory) whose every connection is a `docker` stream
 * to the engine socket on the device, and the CLI gets `DOCKER_HOST=unix://<that socket>`.
 * Refusals (no access, device offline, no engine on the device) reject before the CLI runs.
 */
export async function dockerExec(streams: DeviceStreams, options: DockerExecOptions): Promise<DockerExecResult> {
  const { device, args } = options;
  const timeoutSecs = options.timeout_secs ?? DEFAULT_TIMEOUT_SECS;
  if (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string' || arg.includes('\0'))) throw new InvalidInputError('args must be an array of strings without NUL');
  if (typeof timeoutSecs !== 'number' || !(timeoutSecs > 0) || timeoutSecs > MAX_TIMEOUT_SECS) {
    throw new InvalidInputError(`timeout_secs must be a number of seconds from above 0 to ${MAX_TIMEOUT_SECS}`);
  }
  // One stream first: a refusal is the caller's answer, not a "cannot connect" from the CLI.
  closeProbe(await streams.openDocker(device));

  const dir = mkdtempSync(join(tmpdir(), 'svc-docker-'));
  const errors: Error[] = [];
  const forwarder = new LocalForwarder(streams, device, { local: { kind: 'unix', path: join(dir, 'docker.sock') }, remote: { kind: 'docker' } }, { onConnectionError: (error) => errors.push(error) });
  try {
    const socket = await forwarder.listen();
    const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env), DOCKER_HOST: `unix://${socket}` };
    for (const name of CONFLICTING_ENV) delete env[name];
    const inherit = options.io === 'inherit';
    const result = await runCli(options.dockerBinary ?? 'docker', args, env, timeoutSecs * 1000, inherit ? undefined : (options.maxOutputBytes ?? MAX_OUTPUT_BYTES));
    // The CLI only says it could not connect; the device stream's refusal says why.
    const notes = [
      ...(errors.length > 0 && result.exit_code !== 0 ? [`svc: ${errors[0].message}\n`] : []),
      ...(result.timed_out ? [`svc: docker did not finish within ${timeoutSecs} s and was killed\n`] : []),
    ];
    if (inherit) for (const note of notes) process.stderr.write(note);
    else result.stderr += notes.join('');
    return result;
  } finally {
    await forwarder.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Closes the probe stream by ending it (the engine sees a connection that sent nothing and closes
 * it), so that the device's tunnel receives no reset; only an engine that keeps it open is reset.
 */
function closeProbe(probe: ClientHttp2Stream): void {
  probe.on('error', () => undefined);
  probe.resume();
  probe.end();
  const timer = setTimeout(() => resetStream(probe), PROBE_CLOSE_MS);
  probe.once('close', () => clearTimeout(timer));
}

/** Runs the docker CLI; `captureBytes` undefined: on this process's own stdio, else collected up to that many bytes per stream. */
function runCli(binary: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, captureBytes: number | undefined): Promise<DockerExecResult> {
  return new Promise((resolve, reject) => {
    const inherit = captureBytes === undefined;
    const child = spawn(binary, args, { env, stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    const stdout = inherit ? () => '' : capture(child.stdout!, captureBytes);
    const stderr = inherit ? () => '' : capture(child.stderr!, captureBytes);
    let timedOut = false;
    let killer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      killer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    }, timeoutMs);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      clearTimeout(killer);
      reject(error.code === 'ENOENT' ? new NotFoundError(`The docker CLI (${binary}) is not installed on this machine; docker_exec runs it against the device's engine`) : error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      // As exec: a process ended by a signal reports 128 + its number.
      const exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0);
      resolve({ stdout: stdout(), stderr: stderr(), exit_code: exitCode, timed_out: timedOut });
    });
  });
}

/** Collects a stream as UTF-8, keeping the first `maxBytes` and counting the rest. */
function capture(stream: NodeJS.ReadableStream, maxBytes: number): () => string {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  stream.on('data', (chunk: Buffer) => {
    const take = Math.min(chunk.length, maxBytes - kept);
    if (take > 0) chunks.push(chunk.subarray(0, take));
    kept += take;
    dropped += chunk.length - take;
  });
  return () => Buffer.concat(chunks).toString('utf8') + (dropped > 0 ? `\n[svc: output truncated, ${dropped} more bytes not shown]\n` : '');
}
