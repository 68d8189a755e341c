import { useState } from 'preact/hooks';

export interface Selection {
  /** The selected ids among `selectable`, in its order. */
  ids: string[];
  has(id: string): boolean;
  toggle(id: string, on: boolean): void;
  /** All of `selectable` on, or all off. */
  setAll(on: boolean): void;
  all: boolean;
  some: boolean;
}

/**
 * Which of the page's devices are selected for a batch action. Only ids in `selectable` count, so
 * a device that left the page (another page, a filter, a live update) drops out by itself.
 */
export function useSelection(selectable: string[]): Selection {
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const ids = selectable.filter((id) => chosen.has(id));
  return {
    ids,
    has: (id) => chosen.has(id),
    toggle: (id, on) =>
      setChosen((previous) => {
        const next = new Set(previous);
        if (on) next.add(id);
        else next.delete(id);
        return next;
      }),
    setAll: (on) => setChosen(new Set(on ? selectable : [])),
    all: selectable.length > 0 && ids.length === selectable.length,
    some: ids.length > 0,
  };
}
