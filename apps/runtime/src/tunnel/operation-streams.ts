import { TUNNEL_LIMITS } from '@svc/common';

/** What a tunnel's operation stream tells: that it closed. */
interface ClosingStream {
  once(event: 'close', listener: () => void): unknown;
}

/**
 * A tunnel's operation streams in flight (the deployment channel is none: it lives as long as the
 * session). When the server closes the tunnel (its GOAWAY or close message, e.g. because a newer
 * tunnel of this device replaced it) the tunnel drains: it hangs up once the last one closed, so
 * an operation the server opened on it still ends with its answer, at the latest after
 * TUNNEL_LIMITS.replacedTunnelDrainMs, when the server cuts the connection too.
 */
export class OperationStreams {
  private open = 0;
  private draining = false;
  private hangUp: (() => void) | undefined;
  private deadline: NodeJS.Timeout | undefined;

  track(stream: ClosingStream): void {
    this.open++;
    stream.once('close', () => {
      if (--this.open === 0) this.hangUp?.();
    });
  }

  busy(): boolean {
    return this.open > 0;
  }

  /** Calls `hangUp` once no operation stream is open (on the next turn when none is), or after `drainMs`. */
  drain(hangUp: () => void, drainMs: number = TUNNEL_LIMITS.replacedTunnelDrainMs): void {
    if (this.draining) return;
    this.draining = true;
    this.hangUp = () => {
      this.stop();
      hangUp();
    };
    if (this.open === 0) setImmediate(() => this.hangUp?.());
    else {
      this.deadline = setTimeout(() => this.hangUp?.(), drainMs);
      this.deadline.unref();
    }
  }

  /** The tunnel went another way: no hang-up pending. */
  stop(): void {
    clearTimeout(this.deadline);
    this.hangUp = undefined;
  }
}
