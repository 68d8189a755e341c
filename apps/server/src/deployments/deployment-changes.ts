import { Inject, Injectable } from '@nestjs/common';
import { ReplicaEvents } from '../replicas/replica-events';

/**
 * "A device's desired state may have changed": said by whatever committed the change (a REST
 * route, a rollback report), heard by the deployment channel of that device if this process holds
 * it. Other replicas hear it through ReplicaEvents when replicas share NATS, and in any case
 * from the head's revision (DeploymentChannels' poll).
 */
@Injectable()
export class DeploymentChanges {
  private readonly listeners = new Set<(deviceId: string) => void>();

  /** `events`: null without NATS_URL (one process). */
  constructor(@Inject(ReplicaEvents) private readonly events: ReplicaEvents | null) {
    events?.subscribe('deployment.changed', ({ deviceId }) => this.tell(deviceId));
  }

  changed(deviceId: string): void {
    this.tell(deviceId);
    this.events?.publish('deployment.changed', { deviceId });
  }

  private tell(deviceId: string): void {
    for (const listener of this.listeners) listener(deviceId);
  }

  onChanged(listener: (deviceId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
