/**
 * Every command the runtime starts leads its own process group (spawn `detached`), so one signal
 * to `-pgid` reaches everything it forked, including what its children started in the background.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while any process of the group exists (the kernel keeps the group as long as one does). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How long a group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2000;

/**
 * SIGTERM to the group now, SIGKILL to whatever is left after the grace period. Idempotent: a
 * second call does not restart the clock.
 */
export class GroupTerminator {
  private killTimer: NodeJS.Timeout | undefined;
  private started = false;

  constructor(
    private readonly pgid: number,
    private readonly graceMs = KILL_GRACE_MS,
  ) {}

  get terminating(): boolean {
    return this.started;
  }

  terminate(onKilled?: () => void): void {
    if (this.started) return;
    this.started = true;
    signalGroup(this.pgid, 'SIGTERM');
    this.killTimer = setTimeout(() => {
      signalGroup(this.pgid, 'SIGKILL');
      onKilled?.();
    }, this.graceMs);
  }

  /** Called once the group is known to be empty. */
  dispose(): void {
    if (this.killTimer && !groupAlive(this.pgid)) clearTimeout(this.killTimer);
  }
}
