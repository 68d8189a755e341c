import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConflictError, ForwardSession, NotFoundError, UnauthenticatedError } from '@svc/common';
import { EXIT } from '../exit-codes';
import type { CliSettings } from '../config/cli-settings';
import { ForwardSessionStore, ForwardStarted, newSessionId, planForward } from '../sdk/forward-sessions';
import { CAN_IDENTIFY_PROCESSES, processStart } from './process-identity';

/** A background session's record: the session plus the process that holds its listeners. */
export interface SessionRecord extends ForwardSession {
  pid: number;
  /** processStart(pid) when the session recorded itself: a later process with the same pid is not it. */
  process_start?: string;
  started_at: string;
}

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

export function sessionsDirectory(settings: Pick<CliSettings, 'configDir'>): string {
  return join(settings.configDir, 'forwards');
}

/** Written by the session's own process once every listener is up (see `svc forward --session`). */
export function writeSessionRecord(settings: Pick<CliSettings, 'configDir'>, record: SessionRecord): void {
  const dir = sessionsDirectory(settings);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${record.session_id}.${process.pid}.tmp`);
  writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, join(dir, `${record.session_id}.json`));
}

export function removeSessionRecord(settings: Pick<CliSettings, 'configDir'>, sessionId: string): void {
  rmSync(join(sessionsDirectory(settings), `${sessionId}.json`), { force: true });
  rmSync(join(sessionsDirectory(settings), `${sessionId}.log`), { force: true });
}

/**
 * `svc forward start|stop|list`: each session is a detached `svc forward … --session <id>`
 * process that outlives the command, recorded in `~/.config/svc/forwards/<id>.json` (0600).
 * A record whose process is gone (or whose pid another process has since) is dropped when listed
 * or stopped, never signalled.
 */
export class BackgroundForwardSessions implements ForwardSessionStore {
  constructor(
    private readonly settings: CliSettings,
    /** The svc package (oclif's config.root): sessions run its bin/run.js. */
    private readonly cli: { root: string } = { root: join(__dirname, '..', '..') },
  ) {}

  async start(device: string, specs: string[]): Promise<ForwardStarted> {
    planForward(specs);
    const sessionId = newSessionId();
    const dir = sessionsDirectory(this.settings);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const logPath = join(dir, `${sessionId}.log`);
    const log = openSync(logPath, 'w', 0o600);
    const child = spawn(process.execPath, [join(this.cli.root, 'bin', 'run.js'), 'forward', device, ...specs, '--session', sessionId], {
      detached: true,
      stdio: ['ignore', log, log],
      env: { ...process.env, SVC_SERVER_URL: this.settings.serverUrl.href },
    });
    closeSync(log);
    child.unref();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const record = this.read(sessionId);
      if (record) return { session_id: record.session_id, device: record.device, targets: record.targets, status: 'started' };
      const code = await Promise.race([exited, new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 100))]);
      if (code !== 'waiting') {
        const reason = lastLine(logPath) ?? `the session process exited with code ${code}`;
        removeSessionRecord(this.settings, sessionId);
        // The session process printed svc's one-line error: the same answer, with its exit code's meaning.
        const message = reason.replace(/^Error: /, '');
        throw code === EXIT.AUTH ? new UnauthenticatedError(message) : new ConflictError(message);
      }
      if (Date.now() > deadline) {
        child.kill('SIGTERM');
        throw new Error(`The forward session did not start within ${START_TIMEOUT_MS / 1000} s; see ${logPath}`);
      }
    }
  }

  async stop(sessionId: string): Promise<{ session_id: string; status: 'stopped' }> {
    const record = this.read(sessionId);
    if (!record || !running(record)) {
      if (record) removeSessionRecord(this.settings, sessionId);
      throw new NotFoundError(`No forward session ${sessionId} ("svc forward list" shows the open ones)`);
    }
    process.kill(record.pid, 'SIGTERM');
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (running(record) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    if (running(record)) process.kill(record.pid, 'SIGKILL');
    removeSessionRecord(this.settings, sessionId);
    return { session_id: sessionId, status: 'stopped' };
  }

  async list(): Promise<ForwardSession[]> {
    let names: string[];
    try {
      names = readdirSync(sessionsDirectory(this.settings));
    } catch {
      return [];
    }
    const sessions: ForwardSession[] = [];
    for (const name of names.filter((n) => /^fwd-[0-9a-f]+\.json$/.test(n)).sort()) {
      const record = this.read(name.replace(/\.json$/, ''));
      if (!record) continue;
      if (!running(record)) {
        removeSessionRecord(this.settings, record.session_id);
        continue;
      }
      sessions.push({ session_id: record.session_id, device: record.device, specs: record.specs, targets: record.targets });
    }
    return sessions;
  }

  private read(sessionId: string): SessionRecord | undefined {
    if (!/^fwd-[0-9a-f]+$/.test(sessionId)) return undefined;
    try {
      const record = JSON.parse(readFileSync(join(sessionsDirectory(this.settings), `${sessionId}.json`), 'utf8')) as SessionRecord;
      return typeof record.pid === 'number' && record.session_id === sessionId ? record : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * Whether the session's own process still runs: its pid alive AND started when the record says
 * (a pid reused by another process is not signalled). A record without a start time is trusted
 * only where processes cannot be told apart at all (Windows).
 */
function running(record: SessionRecord): boolean {
  if (!alive(record.pid)) return false;
  if (record.process_start === undefined) return !CAN_IDENTIFY_PROCESSES;
  return processStart(record.pid) === record.process_start;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function lastLine(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).pop();
  } catch {
    return undefined;
  }
}
