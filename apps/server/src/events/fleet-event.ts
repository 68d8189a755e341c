import type { FleetEventType } from '@svc/common';

/**
 * The facts the event stream (GET /events, docs/dashboard.md "Event stream") tells the callers who
 * may see them. `data` is what a client reads; `audience` is what AccessPolicy decides on, at send
 * time, for each connected caller: it never leaves the server.
 */

/** Who may see an event: exactly one of these is set. */
export type FleetAudience =
  /** Callers who see the device (device:view). */
  | { deviceId: string }
  /** Callers who decide registration requests for this owner scope. */
  | { approversOf: string }
  /** Members of the organization, and the member the change is about. */
  | { orgId: string; member?: string };

/** An event as it travels between replicas: without an id (each replica numbers its own window). */
export interface FleetEventBody {
  type: FleetEventType;
  /** ISO 8601. */
  at: string;
  data: Record<string, unknown>;
  audience: FleetAudience;
}

/** An event in this replica's window: `id` is `<epoch>-<seq>` (EventJournal). */
export interface FleetEvent extends FleetEventBody {
  id: string;
  seq: number;
  /** When this replica took it in (ms): the window's age counts from here, not from another replica's clock. */
  receivedAt: number;
}

/** What an emit point knows; FleetEvents adds the time and the device's name. */
export interface FleetFact {
  type: FleetEventType;
  audience: FleetAudience;
  /** The device concerned, if any: `device_id` and `device` (its name) go into `data`. */
  deviceId?: string;
  /** The device's name when the emit point has it (otherwise read from storage). */
  deviceName?: string;
  /** Fields of `data` specific to the type. */
  details?: Record<string, unknown>;
  /** Asked in the event's turn (after the events emitted before it): false drops it. */
  onlyIf?: () => Promise<boolean>;
}
