import { BatchItem, BatchResult, DomainError, InvalidInputError, TimeoutError } from '@svc/common';

export interface BatchTarget {
  device?: string;
  devices?: string[];
}

/**
 * One [Batch] operation in two steps. `resolve` says what a reference names and that thing's key
 * (a device id), so references to one device, by id or by name, are evaluated once; `run` does the
 * work. `count` is the number of distinct targets, for operations that share a budget among them.
 * `signal` aborts when the item times out: work that can stop (a tunnel stream) should.
 */
export interface BatchSteps<T, R> {
  resolve(ref: string, signal: AbortSignal): Promise<{ key: string; target: T }>;
  run(target: T, context: { count: number; signal: AbortSignal }): Promise<R>;
}

/** A batch whose references need no resolving: each reference is its own key. */
export type BatchWork<R> = (ref: string, signal: AbortSignal) => Promise<R>;

export interface BatchLimits {
  /** Items in flight at once, so a batch of 100 never starts 100 storage or tunnel operations together. */
  concurrency: number;
  /** Per step of an item; past it the item answers TIMEOUT and the batch goes on without it. */
  timeoutMs: number;
}

export const DEFAULT_BATCH_LIMITS: BatchLimits = { concurrency: 8, timeoutMs: 30_000 };

type Outcome<V> = { ok: true; value: V } | { ok: false; error: DomainError };

/**
 * [Batch] semantics: exactly one of `device`/`devices`. A single device answers with the result
 * itself (errors thrown). A list answers `{results}` with one entry per distinct device, in the order
 * of its first reference (which names it in `device`); an item that fails carries `{device, error,
 * code}`, with HTTP 200 for the whole. Errors that are not domain errors fail the whole request.
 */
export async function runBatch<T, R extends object>(
  target: BatchTarget,
  stepsOrWork: BatchSteps<T, R> | BatchWork<R>,
  limits: BatchLimits = DEFAULT_BATCH_LIMITS,
): Promise<R | BatchResult<R>> {
  const steps = typeof stepsOrWork === 'function' ? byReference(stepsOrWork) : stepsOrWork;
  const single = target.device !== undefined;
  if (single === (target.devices !== undefined)) throw new InvalidInputError('Give exactly one of device or devices');
  if (single) {
    const resolved = await bounded(limits.timeoutMs, (signal) => steps.resolve(target.device!, signal));
    return bounded(limits.timeoutMs, (signal) => steps.run(resolved.target, { count: 1, signal }));
  }
  // How many `devices` a call may name (1 to LIMITS.maxBatchSize) is the catalog's BATCH_TARGET,
  // checked on the route before this runs.
  const devices = target.devices!;

  const refs = [...new Set(devices)];
  const resolved = await pool(refs, limits.concurrency, (ref) => settle(bounded(limits.timeoutMs, (signal) => steps.resolve(ref, signal))));
  const items: { ref: string; outcome: Outcome<T> }[] = [];
  const keys = new Set<string>();
  refs.forEach((ref, i) => {
    const outcome = resolved[i];
    if (outcome.ok) {
      if (keys.has(outcome.value.key)) return;
      keys.add(outcome.value.key);
      items.push({ ref, outcome: { ok: true, value: outcome.value.target } });
    } else {
      items.push({ ref, outcome });
    }
  });
  const count = keys.size;
  const results = await pool(items, limits.concurrency, async ({ ref, outcome }): Promise<BatchItem<R>> => {
    const done = outcome.ok ? await settle(bounded(limits.timeoutMs, (signal) => steps.run(outcome.value, { count, signal }))) : outcome;
    return done.ok ? { device: ref, ...done.value } : { device: ref, error: done.error.message, code: done.error.code };
  });
  return { results };
}

function byReference<R>(work: BatchWork<R>): BatchSteps<any, R> {
  return { resolve: async (ref) => ({ key: ref, target: ref }), run: (ref: string, { signal }) => work(ref, signal) };
}

/** Runs `work` with a deadline: past it the signal aborts and TimeoutError is thrown (the work is abandoned). */
async function bounded<V>(timeoutMs: number, work: (signal: AbortSignal) => Promise<V>): Promise<V> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new TimeoutError(`No answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
  });
  const running = work(controller.signal);
  // An abandoned item may still fail later; that is not this request's error any more.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function settle<V>(promise: Promise<V>): Promise<Outcome<V>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    if (error instanceof DomainError) return { ok: false, error };
    throw error;
  }
}

/** `task` over every item, at most `concurrency` at once; answers in item order. */
async function pool<I, O>(items: readonly I[], concurrency: number, task: (item: I) => Promise<O>): Promise<O[]> {
  const answers = new Array<O>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        answers[index] = await task(items[index]);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return answers;
}
