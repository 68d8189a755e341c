import { Injectable } from '@nestjs/common';
import { TunnelCredentials } from '../relay/tunnel-ports';
import { DeviceRecords } from '../devices/records/device-records';
import { hashApiKey } from './api-keys';

/** The tunnel's credential check: the device whose API key hash matches. */
@Injectable()
export class DeviceKeyCredentials extends TunnelCredentials {
  constructor(private readonly devices: DeviceRecords) {
    super();
  }

  deviceIdForKey(apiKey: string): Promise<string | null> {
    return this.devices.idForApiKeyHash(hashApiKey(apiKey));
  }
}
