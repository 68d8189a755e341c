import type { KV, KvEntry } from 'nats';

/**
 * Feeds every entry of a KV bucket to `apply`: first the current values (`live` false), then each
 * change as it happens (`live` true). Resolves once the current values are applied, so a cache fed
 * this way is complete before anyone reads it; answers the function that stops the watch.
 */
export async function watchBucket(kv: KV, apply: (entry: KvEntry, live: boolean) => void, failed: (err: Error) => void): Promise<() => void> {
  let live = false;
  let initialized!: () => void;
  const ready = new Promise<void>((resolve) => (initialized = resolve));
  const iterator = await kv.watch({
    initializedFn: () => {
      live = true;
      initialized();
    },
  });
  let stopped = false;
  void (async () => {
    try {
      for await (const entry of iterator) {
        // Entries already queued when the watch was stopped belong to a copy that is being replaced.
        if (stopped) break;
        try {
          apply(entry, live);
        } catch (err) {
          failed(new Error(`entry ${entry.key} ignored: ${(err as Error).message}`));
        }
      }
      if (!stopped) failed(new Error('the watch ended'));
    } catch (err) {
      failed(err as Error);
    } finally {
      initialized();
    }
  })();
  await ready;
  return () => {
    stopped = true;
    iterator.stop();
  };
}
