import { constants as http2Constants } from 'node:http2';
import { constants as osConstants } from 'node:os';
import type { Writable } from 'node:stream';
import {
  DomainError,
  encodeDataFrames,
  exitFrame,
  ExitFrameBody,
  Frame,
  FrameDecoder,
  FrameType,
  parseFramePayload,
  parseShellArgs,
  ResizeFrameBody,
  SignalFrameBody,
  terminalSize,
} from '@svc/common';
import { GroupTerminator, groupAlive, signalGroup } from '../supervisor/process-group';
import type { RunningOperation } from '../supervisor/operation-registry';
import type { StreamContext } from '../tunnel/stream-router';
import { drained } from './exec-handler';
import { shellLaunch } from './shell-launch';
import { foregroundGroup, loadPtyLibrary, ptyInput, Pty, readTailOnExit } from './shell-pty';
import type { OperationStream } from '../tunnel/operation-stream';

/** How long the EXIT frame is given to reach a peer that keeps its side of the stream open. */
const EXIT_FLUSH_WAIT_MS = 1000;
/** Input queued toward a shell that does not read it; above this the request body is not read. */
const INPUT_BACKLOG_BYTES = 64 * 1024;

/**
 * `/v1/shell`: a PTY session (docs/protocol.md, "Shell"). The shell leads its own session and
 * process group. STDIN frames are typed into the terminal, RESIZE resizes it, SIGNAL signals its
 * foreground group; terminal output comes back as STDOUT frames, the PTY paused while HTTP/2 flow
 * control says the reader is behind. Ends with one EXIT frame. A stream that goes away, or the
 * runtime's shutdown, hangs the terminal up (SIGHUP) and kills the shell's group (SIGTERM, then
 * SIGKILL after the grace period).
 */
export async function handleShell(stream: OperationStream, rawArgs: Record<string, unknown>, context: StreamContext): Promise<void> {
  const args = parseShellArgs(rawArgs);
  const library = loadPtyLibrary();
  const launch = shellLaunch(args);
  // encoding null: bytes both ways, never decoded as UTF-8.
  const pty = library.spawn(launch.file, launch.args, { name: args.term, cols: args.cols, rows: args.rows, cwd: launch.cwd, env: launch.env, encoding: null });
  if (stream.destroyed) {
    hangUp(pty.pid, new GroupTerminator(pty.pid));
    return;
  }
  stream.respond({ ':status': 200 });
  context.log.info('shell started', { pid: pty.pid, file: launch.file });
  const run = new ShellRun(pty, stream, context);
  context.operations.add(run);
  await run.done;
}

class ShellRun implements RunningOperation {
  readonly done: Promise<void>;
  private readonly terminator: GroupTerminator;
  private readonly input: Writable | undefined;
  private outputPaused = false;
  /** The terminal is closing and its last output is being read out: never paused again. */
  private readingTail = false;
  private exited = false;
  private aborted = false;
  /** The runtime's shutdown hung the terminal up: EXIT says SIGHUP however the group then ended (it may have needed SIGKILL). */
  private hungUpByShutdown = false;

  constructor(
    private readonly pty: Pty,
    private readonly stream: OperationStream,
    private readonly context: StreamContext,
  ) {
    this.terminator = new GroupTerminator(pty.pid);
    this.input = ptyInput(pty);
    pty.onData((data: Buffer | string) => this.output(data));
    readTailOnExit(
      pty,
      () => (this.readingTail = true),
      (chunk) => this.output(chunk),
    );
    stream.on('drain', () => this.resumeOutput());
    stream.on('aborted', () => this.abort('stream aborted'));
    stream.on('close', () => this.abort('stream closed'));
    void this.readRequestBody();
    this.done = new Promise<void>((resolve) =>
      pty.onExit(({ exitCode, signal }) => {
        this.exited = true;
        // The shell's own group may hold what it left running; its other jobs got its SIGHUP.
        if (groupAlive(pty.pid)) this.terminator.terminate();
        this.terminator.dispose();
        const name = this.hungUpByShutdown ? 'SIGHUP' : signal ? signalName(signal) : null;
        void this.finish({ exit_code: name ? null : exitCode, signal: name, timed_out: false }).then(resolve);
      }),
    );
  }

  abort(reason: string): void {
    if (this.exited) return;
    if (reason === 'shutdown') this.hungUpByShutdown = true;
    else {
      this.aborted = true;
      this.resumeOutput();
    }
    if (this.terminator.terminating) return;
    this.context.log.info('shell stopped', { pid: this.pty.pid, reason });
    hangUp(this.pty.pid, this.terminator);
  }

  /** Terminal output → STDOUT frames; a full HTTP/2 window pauses the PTY (the shell then blocks on write). */
  private output(data: Buffer | string): void {
    if (this.aborted || this.stream.destroyed) return;
    let writable = true;
    for (const frame of encodeDataFrames(FrameType.STDOUT, typeof data === 'string' ? Buffer.from(data) : data)) writable = this.stream.write(frame);
    if (!writable && !this.outputPaused && !this.readingTail) {
      this.outputPaused = true;
      this.pty.pause();
    }
  }

  private resumeOutput(): void {
    if (!this.outputPaused) return;
    this.outputPaused = false;
    this.pty.resume();
  }

  /**
   * Request body: STDIN, RESIZE, SIGNAL. STDIN_EOF and the end of the body mean nothing here: a
   * terminal has no half-close, the session ends when the shell exits or the stream is cancelled.
   */
  private async readRequestBody(): Promise<void> {
    const decoder = new FrameDecoder();
    this.stream.pipe(decoder);
    // An aborted stream never ends its pipe; end the decoder so that this loop ends too.
    this.stream.once('close', () => decoder.writableEnded || decoder.end());
    try {
      for await (const frame of decoder as AsyncIterable<Frame>) {
        if (this.exited) continue;
        if (frame.type === FrameType.STDIN) await this.type(frame.payload);
        else if (frame.type === FrameType.RESIZE) this.resize(parseFramePayload<ResizeFrameBody>(frame));
        else if (frame.type === FrameType.SIGNAL) this.signal(parseFramePayload<SignalFrameBody>(frame).signal);
      }
    } catch (error) {
      if (this.stream.destroyed) return;
      this.context.log.warn('shell request body refused', { error });
      this.stream.close(http2Constants.NGHTTP2_PROTOCOL_ERROR);
      this.abort('malformed request body');
    }
  }

  private async type(bytes: Buffer): Promise<void> {
    // node-pty types the parameter as string; its socket writes Buffers unchanged.
    this.pty.write(bytes as unknown as string);
    if (this.input && this.input.writableLength > INPUT_BACKLOG_BYTES) await drained(this.input);
  }

  /** A size out of range (a minimised window may report 0) is ignored rather than ending the session. */
  private resize(body: ResizeFrameBody): void {
    try {
      this.pty.resize(terminalSize('cols', body.cols), terminalSize('rows', body.rows));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.context.log.debug('shell resize ignored', { message: error.message });
    }
  }

  private signal(signal: unknown): void {
    if (typeof signal !== 'string' || !(signal in osConstants.signals)) return;
    signalGroup(foregroundGroup(this.pty), signal as NodeJS.Signals);
  }

  /**
   * Sends EXIT and resolves once the stream has closed (so a shutdown that follows does not cut
   * the frame off), or after a short wait for a peer that keeps its side open.
   */
  private finish(body: ExitFrameBody): Promise<void> {
    if (this.aborted || this.stream.destroyed) return Promise.resolve();
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

/**
 * What a terminal's hang-up does: SIGHUP, which an interactive shell passes on to its jobs before
 * exiting (it ignores SIGTERM), then the group terminator for anything that stays.
 */
function hangUp(pgid: number, terminator: GroupTerminator): void {
  signalGroup(pgid, 'SIGHUP');
  terminator.terminate();
}

function signalName(signal: number): string {
  const found = Object.entries(osConstants.signals).find(([, value]) => value === signal);
  return found ? found[0] : `SIG${signal}`;
}
