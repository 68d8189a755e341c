import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { DeviceRecords } from '../devices/records/device-records';
import { SYSTEM_ACCESS } from '../devices/records/device-access-scope';
import { ReplicaEvents } from '../replicas/replica-events';
import { EventJournal } from './event-journal';
import { FLEET_EVENT_TYPES } from '@svc/common';
import type { FleetEventBody, FleetFact } from './fleet-event';

/**
 * The one way a feature tells the event stream what happened (tunnel up/down, registration
 * requests and decisions, deployment reports, access changes): the fact goes into this replica's
 * window and, when replicas share NATS, to every other replica's (ReplicaEvents 'fleet.event').
 * Never throws and never waits: an event that cannot be told is logged, not a failed operation.
 * Facts enter the window in the order they were emitted, even when a name has to be read first.
 */
@Injectable()
export class FleetEvents {
  private readonly logger = new Logger('FleetEvents');
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly journal: EventJournal,
    private readonly devices: DeviceRecords,
    private readonly clock: Clock,
    /** Null without NATS_URL: this replica's window is the only one. */
    @Inject(ReplicaEvents) private readonly replicas: ReplicaEvents | null,
  ) {
    replicas?.subscribe('fleet.event', (body) => {
      if (isFleetEventBody(body)) journal.append(body);
      else this.logger.warn('an event from another replica was not understood; dropped');
    });
  }

  emit(fact: FleetFact): void {
    const body = this.describe(fact, this.clock.now().toISOString());
    this.tail = this.tail
      .then(() => body)
      .then(async (ready) => {
        if (fact.onlyIf && !(await fact.onlyIf())) return;
        this.journal.append(ready);
        this.replicas?.publish('fleet.event', ready as FleetEventBody & { audience: Record<string, string> });
      })
      .catch((err: unknown) => this.logger.error(`${fact.type} not told: ${err instanceof Error ? err.message : String(err)}`));
  }

  private async describe(fact: FleetFact, at: string): Promise<FleetEventBody> {
    const data: Record<string, unknown> = { type: fact.type, at };
    if (fact.deviceId !== undefined) {
      data.device_id = fact.deviceId;
      data.device = fact.deviceName ?? (await this.devices.findById(SYSTEM_ACCESS, fact.deviceId))?.name ?? null;
    }
    if ('orgId' in fact.audience) data.org_id = fact.audience.orgId;
    return { type: fact.type, at, data: { ...data, ...fact.details }, audience: fact.audience };
  }
}

function isFleetEventBody(body: { type: string; at: string; data: unknown; audience: unknown }): body is FleetEventBody {
  return (FLEET_EVENT_TYPES as readonly string[]).includes(body.type) && typeof body.at === 'string' && typeof body.data === 'object' && body.data !== null && typeof body.audience === 'object' && body.audience !== null;
}
