import { ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { constants as http2Constants } from 'node:http2';
import {
  encodeDataFrames,
  ExecStreamArgs,
  exitFrame,
  ExitFrameBody,
  ForbiddenError,
  Frame,
  FrameDecoder,
  FrameType,
  InvalidInputError,
  NotFoundError,
  parseExecArgs,
  parseFramePayload,
  SignalFrameBody,
} from '@svc/common';
import { GroupTerminator, groupAlive } from '../supervisor/process-group';
import type { StreamContext } from '../tunnel/stream-router';
import type { OperationStream } from '../tunnel/operation-stream';

/** Output still held open by a process that left the group is cut this long after the exit. */
const LINGER_AFTER_EXIT_MS = 5000;
/** How long the EXIT frame is given to reach a peer that keeps its side of the stream open. */
const EXIT_FLUSH_WAIT_MS = 1000;
/** Variables of the runtime itself that a command must not inherit. */
const PRIVATE_VARIABLES = ['SVC_API_KEY'];

/**
 * `/v1/exec`: runs argv (no shell) in its own process group and streams STDOUT/STDERR frames as
 * they come, pausing the pipes while HTTP/2 flow control says the reader is behind. Ends with
 * one EXIT frame. Timeout, stream abort and shutdown kill the whole group (SIGTERM, then SIGKILL
 * after 2 s); when the command exits, whatever it left running in its group is stopped the same way.
 */
export async function handleExec(stream: OperationStream, rawArgs: Record<string, unknown>, context: StreamContext): Promise<void> {
  const args = parseExecArgs(rawArgs);
  if (args.cwd !== undefined && !isDirectory(args.cwd)) throw new InvalidInputError(`cwd ${args.cwd} is not a directory`);
  const child = spawn(args.command[0], args.command.slice(1), {
    detached: true,
    stdio: [args.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    cwd: args.cwd,
    env: childEnvironment(args.env),
  });
  await spawned(child, args.command[0]);
  stream.respond({ ':status': 200 });
  const run = new ExecRun(child, stream, args, context);
  context.operations.add(run);
  await run.done;
}

class ExecRun {
  readonly done: Promise<void>;
  private readonly terminator: GroupTerminator;
  private readonly paused = new Set<Readable>();
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private timedOut = false;
  private aborted = false;
  private finished = false;
  private lingerTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly child: ChildProcess,
    private readonly stream: OperationStream,
    args: ExecStreamArgs,
    private readonly context: StreamContext,
  ) {
    this.terminator = new GroupTerminator(child.pid!);
    const timeout = setTimeout(() => {
      this.timedOut = true;
      this.context.log.info('exec timed out', { pid: child.pid, timeout_secs: args.timeout_secs });
      this.terminator.terminate();
    }, args.timeout_secs * 1000);
    this.pump(child.stdout!, FrameType.STDOUT);
    this.pump(child.stderr!, FrameType.STDERR);
    stream.on('drain', () => this.resumeAll());
    stream.on('aborted', () => this.abort('stream aborted'));
    stream.on('close', () => this.abort('stream closed'));
    stream.on('error', (error) => this.context.log.debug('exec stream error', { error }));
    child.stdin?.on('error', () => undefined);
    void this.readRequestBody(child.stdin ?? undefined);
    child.on('exit', (code, signal) => {
      // The command itself ended in time, even if what it left behind still holds its output open.
      clearTimeout(timeout);
      this.exit = { code, signal };
      if (groupAlive(child.pid!)) this.terminator.terminate();
      this.lingerTimer = setTimeout(() => this.cutLingeringOutput(), LINGER_AFTER_EXIT_MS);
    });
    this.done = new Promise<void>((resolve) =>
      child.on('close', () => {
        clearTimeout(timeout);
        clearTimeout(this.lingerTimer);
        this.terminator.dispose();
        void this.finish().then(resolve);
      }),
    );
  }

  abort(reason: string): void {
    if (this.finished) return;
    if (this.exit === undefined && !this.terminator.terminating) this.context.log.info('exec stopped', { pid: this.child.pid, reason });
    if (reason !== 'shutdown') {
      this.aborted = true;
      this.resumeAll();
    }
    this.terminator.terminate();
  }

  /** Child output → frames; a full HTTP/2 window pauses the pipe (the child then blocks on write). */
  private pump(source: Readable, type: FrameType): void {
    source.on('data', (chunk: Buffer) => {
      if (this.aborted || this.stream.destroyed) return;
      let writable = true;
      for (const frame of encodeDataFrames(type, chunk)) writable = this.stream.write(frame);
      if (!writable) {
        source.pause();
        this.paused.add(source);
      }
    });
  }

  private resumeAll(): void {
    for (const source of this.paused) source.resume();
    this.paused.clear();
  }

  /** Request body: STDIN (when enabled), STDIN_EOF, SIGNAL; other types mean nothing for exec. */
  private async readRequestBody(stdin: Writable | undefined): Promise<void> {
    const decoder = new FrameDecoder();
    this.stream.pipe(decoder);
    // An aborted stream never ends its pipe; end the decoder so that this loop ends too.
    this.stream.once('close', () => decoder.writableEnded || decoder.end());
    try {
      for await (const frame of decoder as AsyncIterable<Frame>) {
        if (frame.type === FrameType.STDIN && stdin && !stdin.destroyed) {
          if (!stdin.write(frame.payload)) await drained(stdin);
        } else if (frame.type === FrameType.STDIN_EOF) {
          stdin?.end();
        } else if (frame.type === FrameType.SIGNAL) {
          this.forwardSignal(parseFramePayload<SignalFrameBody>(frame).signal);
        }
      }
      stdin?.end();
    } catch (error) {
      if (this.stream.destroyed) return;
      this.context.log.warn('exec request body refused', { error });
      this.stream.close(http2Constants.NGHTTP2_PROTOCOL_ERROR);
      this.abort('malformed request body');
    }
  }

  private forwardSignal(signal: unknown): void {
    if (typeof signal !== 'string' || !(signal in osConstants.signals)) return;
    try {
      process.kill(-this.child.pid!, signal as NodeJS.Signals);
    } catch {
      // The group is already gone.
    }
  }

  private cutLingeringOutput(): void {
    if (this.paused.size > 0) {
      this.lingerTimer = setTimeout(() => this.cutLingeringOutput(), LINGER_AFTER_EXIT_MS);
      return;
    }
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
  }

  /**
   * Sends EXIT and resolves once the stream has closed (so a shutdown that follows does not cut
   * the frame off), or after a short wait for a peer that keeps its side open.
   */
  private finish(): Promise<void> {
    this.finished = true;
    if (this.aborted || this.stream.destroyed) return Promise.resolve();
    const body: ExitFrameBody = { exit_code: this.exit?.code ?? null, signal: this.exit?.signal ?? null, timed_out: this.timedOut };
    this.stream.end(exitFrame(body));
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, EXIT_FLUSH_WAIT_MS);
      this.stream.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

function spawned(child: ChildProcess, program: string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') reject(new NotFoundError(`Command not found: ${program}`));
      else if (error.code === 'EACCES') reject(new ForbiddenError(`Permission denied: ${program}`));
      else reject(new InvalidInputError(`Cannot run ${program}: ${error.message}`));
    });
  });
}

export function drained(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done).off('error', done);
      resolve();
    };
    stream.on('drain', done).on('close', done).on('error', done);
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The runtime's environment less its private variables, read once: copying `process.env` goes
 * through a native getter per variable (~60 µs per command), and the runtime never changes it.
 */
let inheritedEnvironment: NodeJS.ProcessEnv | undefined;

export function childEnvironment(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  if (!inheritedEnvironment) {
    inheritedEnvironment = { ...process.env };
    for (const name of PRIVATE_VARIABLES) delete inheritedEnvironment[name];
  }
  const env: NodeJS.ProcessEnv = { ...inheritedEnvironment, ...extra };
  for (const name of PRIVATE_VARIABLES) delete env[name];
  return env;
}
