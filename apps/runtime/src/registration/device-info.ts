import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { arch, hostname, machine, platform, release, type } from 'node:os';
import { CONTROL_CHARS, LIMITS } from '@svc/common';

export interface DeviceSystemInfo {
  hostname: string;
  platform: string;
  architecture: string;
  os_version: string;
}

const CONTROL = new RegExp(CONTROL_CHARS.source, 'gu');

/** What the approver sees next to the request; free text cleaned the way the server demands. */
export function deviceSystemInfo(): DeviceSystemInfo {
  return {
    hostname: clean(hostname()) || 'unknown',
    platform: clean(platform()),
    architecture: clean(machineName()),
    os_version: clean(osVersion()),
  };
}

/**
 * A device id that stays the same across restarts and reinstalls of the runtime: the host name
 * plus a digest of /etc/machine-id (never the id itself, which is meant to stay private), so two
 * devices both called `raspberrypi` do not collide. Random when the machine has no id.
 */
export function defaultDeviceId(): string {
  const name = hostname().replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 100) || 'device';
  const machineId = readFirst(['/etc/machine-id', '/var/lib/dbus/machine-id']);
  const suffix = machineId ? createHash('sha256').update(`svc-device-id:${machineId}`).digest('hex').slice(0, 8) : randomBytes(4).toString('hex');
  return `${name}-${suffix}`;
}

function machineName(): string {
  // os.machine() (uname -m: x86_64, aarch64, armv7l) exists from Node 18.9; arch() is the fallback.
  return typeof machine === 'function' ? machine() : arch();
}

function osVersion(): string {
  const osRelease = readFirst(['/etc/os-release', '/usr/lib/os-release']);
  const pretty = osRelease && /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(osRelease)?.[1];
  return pretty || `${type()} ${release()}`;
}

function readFirst(paths: string[]): string | undefined {
  for (const path of paths) {
    try {
      const text = readFileSync(path, 'utf8').trim();
      if (text) return text;
    } catch {
      // Try the next one.
    }
  }
  return undefined;
}

function clean(text: string): string {
  return text.replace(CONTROL, '').trim().slice(0, LIMITS.maxInfoFieldLength);
}
