import { existsSync, readFileSync } from 'node:fs';
import { DEVICE_ID_PATTERN, hasControlChars, LIMITS } from '@svc/common';
import { defaultDeviceId, deviceSystemInfo } from './device-info';

describe('device info', () => {
  it('describes this machine with fields the server accepts', () => {
    const info = deviceSystemInfo();
    for (const value of Object.values(info)) {
      expect(value.length).toBeGreaterThan(0);
      expect(value.length).toBeLessThanOrEqual(LIMITS.maxInfoFieldLength);
      expect(hasControlChars(value)).toBe(false);
    }
    expect(info.platform).toBe(process.platform);
  });

  it('derives a valid device id, the same from one start to the next where the machine has an id', () => {
    const id = defaultDeviceId();
    expect(id).toMatch(DEVICE_ID_PATTERN);
    // Without a machine id the suffix is random; the credentials file then keeps the first one.
    if (['/etc/machine-id', '/var/lib/dbus/machine-id'].some(hasContent)) expect(defaultDeviceId()).toBe(id);
  });
});

function hasContent(path: string): boolean {
  return existsSync(path) && readFileSync(path, 'utf8').trim() !== '';
}
