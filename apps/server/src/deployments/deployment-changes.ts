import { Injectable } from '@nestjs/common';

/**
 * "A device's desired state may have changed": said by whatever committed the change (a REST
 * route, a rollback report), heard by the deployment channel of that device if this process holds
 * it. Other replicas learn it from the head's revision (DeploymentChannels' poll).
 */
@Injectable()
export class DeploymentChanges {
  private readonly listeners = new Set<(deviceId: string) => void>();

  changed(deviceId: string): void {
    for (const listener of this.listeners) listener(deviceId);
  }

  onChanged(listener: (deviceId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
