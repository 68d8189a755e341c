import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { DEVICE_REMOVED, DeviceRemovedEvent, IN_REMOVAL_TRANSACTION } from '../devices/device-events';
import { DeploymentsRepository } from './deployments.repository';
import { ReportsRepository } from './reports.repository';

/** A removed device's deployments and reports go with it (inside the removal's transaction). */
@Injectable()
export class DeviceRemovalListener {
  constructor(
    private readonly deployments: DeploymentsRepository,
    private readonly reports: ReportsRepository,
  ) {}

  @OnEvent(DEVICE_REMOVED, IN_REMOVAL_TRANSACTION)
  async removed(event: DeviceRemovedEvent): Promise<void> {
    await this.deployments.removeDevice(event.deviceId);
    await this.reports.deleteForDevice(event.deviceId);
  }
}
