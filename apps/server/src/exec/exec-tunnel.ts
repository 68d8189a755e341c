import { constants as osConstants } from 'node:os';
import {
  DeviceOfflineError,
  DomainError,
  encodeDataFrames,
  ExitFrameBody,
  Frame,
  FrameDecoder,
  FrameType,
  parseFramePayload,
  settled,
  stdinEofFrame,
  limitsOf,
  TunnelProtocolError,
} from '@svc/common';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { deviceError } from '../relay/device-error';

/** The server gives the device this long past `timeout_secs` to report the timeout itself (the catalog's device_exec limit). */
export const DEVICE_GRACE_MS = limitsOf('device_exec').deviceGraceMs;

export type OutputStream = 'stdout' | 'stderr';

export interface ExecExit {
  exit_code: number;
  timed_out: boolean;
}

/**
 * Runs one exec stream to its end: sends stdin (then STDIN_EOF and END_STREAM), hands output to
 * `onOutput` in arrival order and waits for it (so a slow HTTP reader pauses the HTTP/2 stream
 * and, through flow control, the device), and returns the exit status once the device has ended
 * the stream after its EXIT frame. Both sides having ended, the stream closes without a reset:
 * the runtime's HTTP/2 stack counts resets it receives (nghttp2's rapid-reset guard, a burst of
 * 1,000 then 33 per second) and drops the whole tunnel past that. An ERROR frame becomes the
 * domain error it names; a stream cut short means the device went away. `signal` (the HTTP
 * client leaving, or the server's deadline of `timeout_secs` + DEVICE_GRACE_MS) cancels the
 * stream, which makes the device kill the process group.
 */
export async function driveExec(
  tunnel: TunnelStream,
  stdin: string | undefined,
  onOutput: (stream: OutputStream, data: Buffer) => void | Promise<void>,
  signal?: AbortSignal,
): Promise<ExecExit> {
  const body = tunnel.body;
  if (stdin !== undefined) {
    for (const frame of encodeDataFrames(FrameType.STDIN, Buffer.from(stdin, 'utf8'))) body.write(frame);
    body.write(stdinEofFrame());
  }
  body.end();

  const decoder = new FrameDecoder();
  // pipe + settled rather than pipeline: pipeline aborts an AbortController of its own when it
  // completes, a DOMException with a stack trace on every exec. A body that fails or closes before
  // its end still ends the loop below with an error (the device went away).
  body.pipe(decoder);
  settled(body, { writable: false }, (error) => error && decoder.destroy(error));
  const onAbort = () => {
    tunnel.abort();
    decoder.destroy();
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  let exit: ExecExit | undefined;
  try {
    for await (const frame of decoder as AsyncIterable<Frame>) {
      switch (frame.type) {
        case FrameType.STDOUT:
          await onOutput('stdout', frame.payload);
          break;
        case FrameType.STDERR:
          await onOutput('stderr', frame.payload);
          break;
        case FrameType.EXIT:
          // Read on to the device's END_STREAM: cutting the stream now would reset it (see above).
          exit ??= exitOf(parseFramePayload<ExitFrameBody>(frame));
          break;
        case FrameType.ERROR:
          throw deviceError(parseFramePayload(frame), 'The device reported an error');
        default:
          break; // frames meant for the device (STDIN, RESIZE, SIGNAL) are not expected here
      }
    }
    if (exit === undefined) throw new DeviceOfflineError();
    return exit;
  } catch (err) {
    tunnel.abort();
    decoder.destroy();
    if (err instanceof DomainError) throw err;
    if (err instanceof TunnelProtocolError) throw new DomainError('INTERNAL', `The device broke the tunnel protocol: ${err.message}`);
    throw new DeviceOfflineError();
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Non-zero exit is data; a process killed by a signal reports 128 + its number, as shells do. */
function exitOf(body: ExitFrameBody): ExecExit {
  const timedOut = body.timed_out === true;
  if (typeof body.exit_code === 'number') return { exit_code: body.exit_code, timed_out: timedOut };
  const number = typeof body.signal === 'string' ? (osConstants.signals as Record<string, number>)[body.signal] : undefined;
  return { exit_code: number !== undefined ? 128 + number : -1, timed_out: timedOut };
}
