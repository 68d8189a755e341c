import { useEffect } from 'preact/hooks';

/** Calls `reload` every `ms` while the component is mounted (for what the event stream does not tell). */
export function useRefresh(reload: () => void, ms: number): void {
  useEffect(() => {
    const timer = setInterval(reload, ms);
    return () => clearInterval(timer);
  }, [reload, ms]);
}
