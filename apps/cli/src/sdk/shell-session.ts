import type { ClientHttp2Stream } from 'node:http2';
import { Readable, Transform, TransformCallback, Writable } from 'node:stream';
import {
  encodeDataFrames,
  ErrorFrameBody,
  ExitFrameBody,
  Frame,
  FrameDecoder,
  FrameType,
  parseFramePayload,
  errorFromFrame,
  resetStream,
  resizeFrame,
  signalFrame,
} from '@svc/common';
import type { StreamArgs } from '@svc/common/operations';
import { DeviceStreamError, DeviceStreams } from './device-streams';

/**
 * A shell's `svc-args`, typed from device_exec's `shell` stream in the catalog (what the server
 * checks them against): the local terminal's `cols` and `rows` (the device's PTY starts with
 * them), `term` (default xterm-256color), `command` to run instead of the login shell, `env`.
 */
export type ShellOptions = StreamArgs<'device_exec.shell'> & Required<Pick<StreamArgs<'device_exec.shell'>, 'cols' | 'rows'>>;

/** How the shell ended: an exit status, or the signal that killed it (exit_code null). */
export interface ShellExit {
  exit_code: number | null;
  signal: string | null;
}

/**
 * Opens an interactive shell on `device` (docs/protocol.md, "Shell") and resolves once its PTY
 * runs. Refusals reject with DeviceStreamError (DEVICE_NOT_FOUND, FORBIDDEN, DEVICE_OFFLINE,
 * INVALID_INPUT, NOT_FOUND for a device without PTY support, …). No terminal handling here: the
 * caller puts its own terminal in raw mode and pipes it.
 */
export async function openShell(streams: DeviceStreams, device: string, options: ShellOptions): Promise<ShellSession> {
  return new ShellSession(await streams.openShellStream(device, options));
}

/** One shell session over its client stream: the frames of the `shell` operation both ways. */
export class ShellSession {
  /** Terminal output (the PTY merges stdout and stderr) as bytes; a slow reader slows the shell. Read it to the end: `exit` settles after the output before it. */
  readonly output: Readable;
  /** Keystrokes: bytes written here are typed into the terminal, under the stream's flow control. */
  readonly input: Writable;
  /** The shell's end; rejects with DeviceStreamError when the device reports an error or is lost. */
  readonly exit: Promise<ShellExit>;
  private settle!: { resolve(exit: ShellExit): void; reject(error: Error): void };
  private settled = false;

  constructor(private readonly stream: ClientHttp2Stream) {
    this.exit = new Promise<ShellExit>((resolve, reject) => (this.settle = { resolve, reject }));
    this.exit.catch(() => undefined); // a caller that only reads output must not crash the process
    const decoder = new FrameDecoder();
    const output = new Transform({
      writableObjectMode: true,
      transform: (frame: Frame, _encoding, callback: TransformCallback) => this.receive(frame, callback),
      flush: (callback) => {
        this.fail(new DeviceStreamError('DEVICE_OFFLINE', 'the session ended without an exit status (the device or the server went away)', 503, undefined));
        callback();
      },
    });
    this.output = output;
    this.input = new Writable({ write: (chunk: Buffer, _encoding, callback) => this.send(encodeDataFrames(FrameType.STDIN, chunk), callback) });
    decoder.on('error', (err) => {
      this.fail(new DeviceStreamError('INTERNAL', `The shell stream broke the frame protocol: ${err.message}`, 500, undefined));
      this.close();
      output.end();
    });
    stream.on('error', () => undefined); // reported through `exit` when the stream closes
    stream.once('close', () => {
      if (stream.readableEnded) return; // the frames still in the pipes settle `exit`
      this.fail(cutOff(stream));
      decoder.destroy();
      output.end();
    });
    stream.pipe(decoder).pipe(output);
  }

  /** Types `data` into the terminal; false when the caller should wait for the input's 'drain'. */
  write(data: Buffer | string): boolean {
    return this.input.write(data);
  }

  /** Tells the device's PTY the new size (the shell gets SIGWINCH). */
  resize(cols: number, rows: number): void {
    this.control(resizeFrame({ cols, rows }));
  }

  /** Sends `signal` (e.g. SIGINT) to the terminal's foreground process group on the device. */
  signal(signal: NodeJS.Signals): void {
    this.control(signalFrame({ signal }));
  }

  /** Leaves the session: the device hangs the shell up and kills its process group. */
  close(): void {
    this.fail(new Error('The shell session was closed by this client'));
    resetStream(this.stream);
  }

  private receive(frame: Frame, callback: TransformCallback): void {
    if (frame.type === FrameType.STDOUT || frame.type === FrameType.STDERR) {
      callback(null, frame.payload);
      return;
    }
    try {
      if (frame.type === FrameType.EXIT) this.exited(parseFramePayload<ExitFrameBody>(frame));
      else if (frame.type === FrameType.ERROR) this.fail(deviceError(parseFramePayload<ErrorFrameBody>(frame)));
    } catch (err) {
      this.fail(err as Error);
    }
    callback();
  }

  private exited(body: ExitFrameBody): void {
    if (this.settled) return;
    this.settled = true;
    this.settle.resolve({ exit_code: typeof body.exit_code === 'number' ? body.exit_code : null, signal: typeof body.signal === 'string' ? body.signal : null });
    // The device ended its side after EXIT; ending ours lets the stream close cleanly.
    if (!this.stream.writableEnded && !this.stream.destroyed) this.stream.end();
  }

  private fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.settle.reject(error);
  }

  private control(frame: Buffer): void {
    if (this.open()) this.stream.write(frame);
  }

  private send(frames: Buffer[], callback: (error?: Error | null) => void): void {
    if (!this.open()) {
      callback(); // the session is over; what is still typed goes nowhere
      return;
    }
    let writable = true;
    for (const frame of frames) writable = this.stream.write(frame);
    if (writable) {
      callback();
      return;
    }
    const done = () => {
      this.stream.off('drain', done).off('close', done);
      callback();
    };
    this.stream.on('drain', done).on('close', done);
  }

  private open(): boolean {
    return !this.settled && !this.stream.writableEnded && !this.stream.destroyed;
  }
}

function deviceError(body: ErrorFrameBody): DeviceStreamError {
  return errorFromFrame(body, 'The shell failed on the device');
}

/**
 * Who cut a stream that closed without its end: with the connection to the server gone, the
 * server (or the path to it); with the connection still up, the server reset the stream because
 * the device went away.
 */
function cutOff(stream: ClientHttp2Stream): DeviceStreamError {
  const connection = stream.session;
  if (!connection || connection.destroyed || connection.closed) return new DeviceStreamError('SERVER_UNREACHABLE', 'Connection to the server lost', 503, undefined);
  return new DeviceStreamError('DEVICE_OFFLINE', 'the device went away', 503, undefined);
}
