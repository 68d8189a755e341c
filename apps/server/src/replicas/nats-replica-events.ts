import { Logger } from '@nestjs/common';
import type { NatsConnection, Subscription } from 'nats';
import { ReplicaEventPayloads, ReplicaEvents, ReplicaTopic } from './replica-events';

interface Envelope<T> {
  /** The publishing replica: it does not act on its own events (it already did). */
  origin: string;
  payload: T;
}

/** ReplicaEvents on core NATS subjects `<namespace>.events.<topic>` (fire and forget; JSON). */
export class NatsReplicaEvents extends ReplicaEvents {
  private readonly subscriptions: Subscription[] = [];
  private readonly logger = new Logger('ReplicaEvents');

  constructor(
    private readonly nc: NatsConnection,
    private readonly replicaId: string,
    private readonly namespace = 'svc',
  ) {
    super();
  }

  publish<T extends ReplicaTopic>(topic: T, payload: ReplicaEventPayloads[T]): void {
    const envelope: Envelope<ReplicaEventPayloads[T]> = { origin: this.replicaId, payload };
    try {
      this.nc.publish(this.subject(topic), JSON.stringify(envelope));
    } catch (err) {
      this.logger.warn(`${topic} not published (the others catch up from storage): ${(err as Error).message}`);
    }
  }

  subscribe<T extends ReplicaTopic>(topic: T, listener: (payload: ReplicaEventPayloads[T]) => void): void {
    const subscription = this.nc.subscribe(this.subject(topic), {
      callback: (err, message) => {
        if (err) return this.logger.warn(`${topic}: ${err.message}`);
        try {
          const envelope = message.json<Envelope<ReplicaEventPayloads[T]>>();
          if (envelope.origin !== this.replicaId) listener(envelope.payload);
        } catch (error) {
          this.logger.warn(`${topic}: message ignored: ${(error as Error).message}`);
        }
      },
    });
    this.subscriptions.push(subscription);
  }

  close(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
  }

  private subject(topic: ReplicaTopic): string {
    return `${this.namespace}.events.${topic}`;
  }
}
