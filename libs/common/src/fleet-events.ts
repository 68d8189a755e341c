/**
 * The types of GET /events (docs/dashboard.md, "Event stream"), which the server tells and
 * `svc events --type` filters on. `reset` opens a stream whose Last-Event-ID is out of the window.
 */
export const FLEET_EVENT_TYPES = [
  'device.online',
  'device.offline',
  'registration.pending',
  'registration.approved',
  'registration.rejected',
  'deployment.status',
  'access.changed',
] as const;

export type FleetEventType = (typeof FLEET_EVENT_TYPES)[number];

export const EVENT_STREAM_RESET = 'reset';
