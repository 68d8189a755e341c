import { TimeoutError } from '@svc/common';
import type { TunnelStream } from '../relay/tunnel-carrier';

/**
 * The server-side deadline of a file operation (FILES_STALL_TIMEOUT_SECS), like exec's: a device
 * that accepted a file stream and then moves no byte (no answer, no data, no reading of an
 * upload) for that long has its stream cancelled, and the caller gets TIMEOUT instead of waiting
 * forever. Each relay calls `touch()` whenever bytes move. While the server waits on the caller (a
 * slow reader: flow control then holds the device back), the device is not stalling, and the
 * deadline waits too (`holdForCaller` / `waitOnCaller`).
 */
export class StallDeadline {
  private timer: NodeJS.Timeout;
  private fired = false;
  private callerHolds = false;

  constructor(
    private readonly deviceId: string,
    private readonly ms: number,
    private tunnel?: TunnelStream,
  ) {
    this.timer = setTimeout(() => this.fire(), ms);
    this.timer.unref();
  }

  get timedOut(): boolean {
    return this.fired;
  }

  /** The stream to cancel when the deadline passes (once the device accepted it). */
  watch(tunnel: TunnelStream): void {
    this.tunnel = tunnel;
    if (this.fired) tunnel.abort();
    else this.timer.refresh();
  }

  touch(): void {
    if (!this.fired) this.timer.refresh();
  }

  /** The caller stopped reading: the device's silence from now on is not its own. */
  holdForCaller(): void {
    this.callerHolds = true;
  }

  /** The caller reads again: the device has the whole deadline from now. */
  releaseForCaller(): void {
    this.callerHolds = false;
    this.touch();
  }

  /** Waits on the caller (e.g. a response's 'drain') with the deadline held. */
  async waitOnCaller<T>(wait: Promise<T>): Promise<T> {
    this.holdForCaller();
    try {
      return await wait;
    } finally {
      this.releaseForCaller();
    }
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  error(): TimeoutError {
    return new TimeoutError(`Device ${this.deviceId} did not answer for ${Math.round(this.ms / 1000)} s; the file operation was cancelled`);
  }

  /**
   * The device accepting the stream, under this deadline: a device that never answers the
   * request fails it with TIMEOUT (the stream, should it still come, is cancelled at once).
   */
  async accept(pending: Promise<TunnelStream>): Promise<TunnelStream> {
    const expired = new Promise<never>((_resolve, reject) => (this.onFire = () => reject(this.error())));
    try {
      const tunnel = await Promise.race([pending, expired]);
      this.watch(tunnel);
      return tunnel;
    } catch (err) {
      if (this.fired) void pending.then((late) => late.abort(), () => undefined);
      throw err;
    } finally {
      this.onFire = undefined;
    }
  }

  private onFire: (() => void) | undefined;

  private fire(): void {
    if (this.callerHolds) return; // releaseForCaller re-arms it
    this.fired = true;
    this.tunnel?.abort();
    this.onFire?.();
  }
}
