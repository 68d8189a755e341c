/**
 * Events one replica tells all the others (not itself), at most once and without order across
 * topics: a hint to act now on what storage already says. Without NATS_URL this port is null
 * (ReplicasModule); its users then rely on their storage sweep or poll alone, which also stays as
 * the fallback while NATS is unreachable.
 */
export interface ReplicaEventPayloads {
  /** A device's key was revoked (removed, rejected, re-keyed): close its tunnel. `id`: the revocation record's. */
  'device.revoked': { id: string; deviceId: string; revokedAt: string };
  /** A device's desired deployment state may have changed: refresh its channel. */
  'deployment.changed': { deviceId: string };
  /**
   * Something the event stream tells (events/fleet-event.ts, FleetEventBody; kept structural here
   * so that replicas/ does not import the feature): every replica adds it to its own window.
   */
  'fleet.event': { type: string; at: string; data: Record<string, unknown>; audience: Record<string, string> };
}

export type ReplicaTopic = keyof ReplicaEventPayloads;

export abstract class ReplicaEvents {
  /** Tells every other replica; never throws (a lost event is caught up by the fallback). */
  abstract publish<T extends ReplicaTopic>(topic: T, payload: ReplicaEventPayloads[T]): void;
  /** Hears what the other replicas publish on `topic`. */
  abstract subscribe<T extends ReplicaTopic>(topic: T, listener: (payload: ReplicaEventPayloads[T]) => void): void;
}
