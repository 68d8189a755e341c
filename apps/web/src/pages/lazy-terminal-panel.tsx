import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { ErrorBox, Loading } from '../components/feedback';

interface Props {
  api: ApiClient;
  device: string;
}

/** xterm.js is three quarters of the dashboard's JavaScript: it is fetched when a page shows a terminal, not with every page. */
export function LazyTerminalPanel(props: Props) {
  const [panel, setPanel] = useState<{ Panel: ComponentType<Props> } | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    import('./terminal-panel').then(
      (loaded) => live && setPanel({ Panel: loaded.TerminalPanel }),
      (failed: unknown) => live && setError(failed),
    );
    return () => {
      live = false;
    };
  }, []);
  if (error) return <ErrorBox error={error} />;
  if (!panel) return <Loading what="the terminal" />;
  return <panel.Panel {...props} />;
}
