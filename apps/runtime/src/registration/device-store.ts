import { DeviceCredentials, readCredentials, updateCredentials } from '@svc/common';
import { createIdentity, DeviceIdentity, loadIdentity } from './identity-key';

/** The runtime's section of the shared credentials file (`device_credentials`). */
export class DeviceStore {
  constructor(readonly path: string) {}

  read(): DeviceCredentials {
    return readCredentials(this.path).device_credentials ?? {};
  }

  update(change: (device: DeviceCredentials) => void): void {
    updateCredentials(this.path, (doc) => {
      const device = doc.device_credentials ?? {};
      change(device);
      doc.device_credentials = device;
    });
  }

  /** The identity key, created and saved on first use; it survives re-registrations. */
  identity(): DeviceIdentity {
    const stored = this.read().identity_key;
    if (stored !== undefined) {
      try {
        return loadIdentity(stored);
      } catch (error) {
        throw new Error(`${this.path}: device_credentials.identity_key is unusable (${(error as Error).message}); run "svc runtime logout" to start over`);
      }
    }
    const created = createIdentity();
    this.update((device) => {
      device.identity_key = created.stored;
    });
    return created.identity;
  }
}
