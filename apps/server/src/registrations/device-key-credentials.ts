import { Injectable } from '@nestjs/common';
import { TunnelCredentials } from '../relay/tunnel-ports';
import { DevicesRepository } from '../storage/repositories/devices.repository';
import { SYSTEM_ACCESS } from '../storage/repositories/device-access-scope';
import { hashApiKey } from './api-keys';

/** The tunnel's credential check: the device whose API key hash matches, under SYSTEM_ACCESS. */
@Injectable()
export class DeviceKeyCredentials extends TunnelCredentials {
  constructor(private readonly devices: DevicesRepository) {
    super();
  }

  async deviceIdForKey(apiKey: string): Promise<string | null> {
    const device = await this.devices.findByApiKeyHash(SYSTEM_ACCESS, hashApiKey(apiKey));
    return device?.id ?? null;
  }
}
