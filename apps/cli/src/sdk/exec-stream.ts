import type { ClientHttp2Stream } from 'node:http2';
import { constants as osConstants } from 'node:os';
import { pipeline, Readable } from 'node:stream';
import { errorFromFrame } from '@svc/common/error-answer';
import { resetStream } from '@svc/common/stream-splice';
import { encodeDataFrames, ErrorFrameBody, ExitFrameBody, Frame, FrameDecoder, FrameType, parseFramePayload, stdinEofFrame } from '@svc/common/tunnel';
import { DeviceStreamError, DeviceStreams } from './device-streams';

export type OutputStreamName = 'stdout' | 'stderr';

export interface ExecStreamOptions {
  /** argv, run without a shell. */
  command: string[];
  timeout_secs: number;
  /** Sent to the command's stdin as it is read, then EOF; without it the command's stdin is closed at once. */
  stdin?: Readable;
  /** The command's output as produced; a returned promise holds the stream (and the command) until it settles. */
  onOutput(stream: OutputStreamName, data: Buffer): void | Promise<void>;
  /** Cancels the run (the device kills the command); the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** How the command ended; a command killed by a signal reports 128 + its number, as shells do. */
export interface ExecStreamExit {
  exit_code: number;
  timed_out: boolean;
}

/**
 * Runs a command on one device the way `ssh host cmd` does (docs/protocol.md, "Exec stream"):
 * output arrives byte for byte as produced, stdout and stderr apart, and stdin goes up as it is
 * read, ending with EOF. Refusals (no access, device offline, command not found) reject before
 * anything runs, with DeviceStreamError. Once the command has exited, the stream is closed by
 * ending both sides, never by a reset.
 */
export async function execStream(streams: DeviceStreams, device: string, options: ExecStreamOptions): Promise<ExecStreamExit> {
  const stream = await streams.openExecStream(device, { command: options.command, timeout_secs: options.timeout_secs, stdin: options.stdin !== undefined });
  stream.on('error', () => undefined); // a broken stream is reported by the frame loop
  const stopStdin = options.stdin ? sendStdin(stream, options.stdin) : (stream.end(), () => undefined);
  const cancel = () => resetStream(stream);
  if (options.signal?.aborted) cancel();
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await receive(stream, options.onOutput);
  } catch (error) {
    resetStream(stream);
    if (options.signal?.aborted) throw options.signal.reason;
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    stopStdin();
  }
}

/** STDIN frames as `stdin` is read (paused while the stream's window is full), then STDIN_EOF and END_STREAM. */
function sendStdin(stream: ClientHttp2Stream, stdin: Readable): () => void {
  const finish = () => {
    if (!stream.writableEnded && !stream.destroyed) stream.end(stdinEofFrame());
  };
  const onData = (chunk: Buffer) => {
    if (stream.writableEnded || stream.destroyed) return;
    let writable = true;
    for (const frame of encodeDataFrames(FrameType.STDIN, chunk)) writable = stream.write(frame);
    if (!writable) {
      stdin.pause();
      stream.once('drain', () => stdin.resume());
    }
  };
  stdin.on('data', onData).once('end', finish).once('error', finish);
  return () => {
    stdin.off('data', onData).off('end', finish).off('error', finish);
    // The command is gone: local input no longer matters, and must not hold this process open.
    stdin.destroy();
    if (!stream.writableEnded && !stream.destroyed) stream.end();
  };
}

async function receive(stream: ClientHttp2Stream, onOutput: ExecStreamOptions['onOutput']): Promise<ExecStreamExit> {
  const decoder = new FrameDecoder();
  pipeline(stream, decoder, () => undefined);
  let exit: ExecStreamExit | undefined;
  try {
    for await (const frame of decoder as AsyncIterable<Frame>) {
      if (frame.type === FrameType.STDOUT) await onOutput('stdout', frame.payload);
      else if (frame.type === FrameType.STDERR) await onOutput('stderr', frame.payload);
      else if (frame.type === FrameType.EXIT) exit ??= exitOf(parseFramePayload<ExitFrameBody>(frame));
      else if (frame.type === FrameType.ERROR) throw deviceError(parseFramePayload<ErrorFrameBody>(frame));
    }
  } catch (error) {
    if (error instanceof DeviceStreamError) throw error;
    throw new DeviceStreamError('DEVICE_OFFLINE', 'The command was cut off: the device or the server went away', 503, undefined);
  }
  if (exit === undefined) throw new DeviceStreamError('DEVICE_OFFLINE', 'The command ended without an exit status: the device or the server went away', 503, undefined);
  return exit;
}

function exitOf(body: ExitFrameBody): ExecStreamExit {
  const timedOut = body.timed_out === true;
  if (typeof body.exit_code === 'number') return { exit_code: body.exit_code, timed_out: timedOut };
  const number = typeof body.signal === 'string' ? (osConstants.signals as Record<string, number>)[body.signal] : undefined;
  return { exit_code: number !== undefined ? 128 + number : 255, timed_out: timedOut };
}

function deviceError(body: ErrorFrameBody): DeviceStreamError {
  return errorFromFrame(body, 'The device reported an error');
}
