import { createContext } from 'preact';
import { useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { EventStream, FleetEvent, RESET, StreamState } from '../api/events';
import type { Session } from '../auth/session';

/**
 * Live updates for the pages: the tab's one GET /events stream (api/events.ts), shared through a
 * context. A page or panel follows it with one line:
 *
 *   useFleetEvents(['deployment.status'], (event) => ..., { device: id });   // handle each event
 *   useLiveReload(['deployment.status'], deployments.reload, { device: id }); // or just reload
 *
 * Listeners also get `reset` (the server could not resume: reload what you show); useLiveReload
 * reloads on it. Event types and fields: docs/dashboard.md, "Event stream".
 */
export const LiveContext = createContext<EventStream | null>(null);

/** Only the events of this device (`data.device_id`). */
export interface EventFilter {
  device?: string;
}

const concerns = (event: FleetEvent, filter: EventFilter) => event.type === RESET || filter.device === undefined || event.data.device_id === filter.device;

/** Calls `handler` for each event of `types` (and `reset`) matching `filter`, while the component is mounted. */
export function useFleetEvents(types: readonly string[], handler: (event: FleetEvent) => void, filter: EventFilter = {}): void {
  const stream = useContext(LiveContext);
  const latest = useRef(handler);
  latest.current = handler;
  const key = `${types.join(',')}|${filter.device ?? ''}`;
  useEffect(() => {
    if (!stream) return;
    return stream.subscribe(types, (event) => {
      if (concerns(event, filter)) latest.current(event);
    });
  }, [stream, key]);
}

/** Calls `reload` after events of `types` (and `reset`) matching `filter`; a burst of events gives one reload. */
export function useLiveReload(types: readonly string[], reload: () => void, filter: EventFilter = {}, delayMs = 200): void {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  useFleetEvents(
    types,
    () => {
      clearTimeout(timer.current);
      timer.current = setTimeout(reload, delayMs);
    },
    filter,
  );
}

/** The tab's stream, following the session: started when signed in, reconnected with a renewed token, stopped on sign-out. */
export function useSessionStream(session: Session): EventStream {
  const stream = useMemo(() => new EventStream(() => session.accessToken()), [session]);
  useEffect(() => {
    const follow = () => {
      if (!session.signedIn) stream.stop();
      else if (stream.state === 'stopped') stream.start();
      else stream.tokenChanged();
    };
    follow();
    const unsubscribe = session.onChange(follow);
    return () => {
      unsubscribe();
      stream.stop();
    };
  }, [stream, session]);
  return stream;
}

const LABELS: Record<StreamState, string> = { stopped: 'Offline', connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' };
const TITLES: Record<StreamState, string> = {
  stopped: 'Not following the fleet’s events',
  connecting: 'Opening the event stream',
  live: 'Following the fleet’s events: the pages update by themselves',
  reconnecting: 'The event stream dropped: reconnecting (what was missed is replayed)',
};

/** The header's indicator: is the page following the event stream? */
export function LiveIndicator() {
  const stream = useContext(LiveContext);
  const [state, setState] = useState<StreamState>(stream?.state ?? 'stopped');
  useEffect(() => {
    if (!stream) return;
    setState(stream.state);
    return stream.onState(setState);
  }, [stream]);
  return (
    <span class={`live live-${state}`} data-state={state} role="status" aria-label={`Live updates: ${LABELS[state]}`} title={TITLES[state]}>
      {LABELS[state]}
    </span>
  );
}
