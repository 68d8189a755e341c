import { useEffect, useRef } from 'preact/hooks';

/**
 * A ref that takes the keyboard's focus when its element appears. `autofocus` is not enough: a
 * browser honours it once per document, so a confirmation shown a second time would not get focus.
 */
export function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.focus(), []);
  return ref;
}
