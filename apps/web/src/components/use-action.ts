import { useState } from 'preact/hooks';

export interface Action {
  busy: boolean;
  error: unknown;
  notice: string;
  /** Runs `work`; on success shows `done` and calls `then` (a reload), on failure keeps the API's error to show. */
  run<T>(work: () => Promise<T>, done: string | ((result: T) => string), then?: () => void): Promise<void>;
}

/** A write the user started from a panel: one at a time, its error or its result shown beside it. */
export function useAction(): Action {
  const [state, setState] = useState<{ busy: boolean; error: unknown; notice: string }>({ busy: false, error: null, notice: '' });
  async function run<T>(work: () => Promise<T>, done: string | ((result: T) => string), then?: () => void) {
    setState({ busy: true, error: null, notice: '' });
    try {
      const result = await work();
      setState({ busy: false, error: null, notice: typeof done === 'string' ? done : done(result) });
      then?.();
    } catch (error) {
      setState({ busy: false, error, notice: '' });
    }
  }
  return { ...state, run };
}
