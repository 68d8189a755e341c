import { ConflictError } from '@svc/common';

/** What `updateIfUnchanged` attempts answer when another write came first. */
export const LOST_RACE = Symbol('lost race');

export const CHANGED_MEANWHILE = 'The device was changed by another request meanwhile; try again';

const MAX_ATTEMPTS = 25;

/**
 * Runs `attempt` (read the device, decide, `updateIfUnchanged`) until its write lands. A lost race
 * means another request wrote first, so the next attempt reads again and decides again, checks and
 * authorization included. Each loss is another writer's win, so this ends; a growing random pause
 * spreads a crowd of writers out, and the bound is for pathological contention.
 */
export async function retryLostRaces<R>(attempt: () => Promise<R | typeof LOST_RACE>): Promise<R> {
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(i, 5)));
    const outcome = await attempt();
    if (outcome !== LOST_RACE) return outcome;
  }
  throw new ConflictError(CHANGED_MEANWHILE);
}
