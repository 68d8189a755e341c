import { Args, Flags } from '@oclif/core';
import { parseTimeArgument, TIME_ARGUMENT_HELP } from './time-argument';
import { catalogDefault, catalogOptions } from './catalog-flags';

/** Shared argument and flag definitions, so every command names them the same way. */
export const deviceArg = Args.string({ name: 'device', description: 'device name or id', required: true });

export const devicesFlag = Flags.string({
  description: 'several devices, comma-separated names or ids (instead of the device argument)',
  delimiter: ',',
  multiple: true,
});

export const roleFlag = Flags.string({ description: 'role to grant', options: catalogOptions('device_access_add', 'role'), required: true });

/** `device` xor `devices` for [Batch] operations: the argument, or `--devices a,b,c`. */
export function batchTarget(device: string | undefined, devices: string[] | undefined): { device?: string; devices?: string[] } {
  if (devices && devices.length > 0) return device === undefined ? { devices } : { device, devices };
  return device === undefined ? {} : { device };
}

export const orgArg = Args.string({ name: 'org', description: 'organization id', required: true });

export const deploymentArg = Args.string({ name: 'deployment', description: 'deployment id (svc deployments list shows them)', required: true });

export const deploymentFlag = Flags.string({ description: 'deployment id (the active deployment when omitted)' });

export const activeFlag = Flags.boolean({ description: 'make it the active deployment at once (the device stops the jobs of the previous one)', default: catalogDefault<boolean>('device_deployment_new', 'active', 'boolean') });

/** A point in time for --since/--until, as journalctl takes it (time-argument.ts); sent as ISO 8601. */
export const timeFlag = (description: string) => Flags.custom<string>({ description: `${description}: ${TIME_ARGUMENT_HELP}`, parse: async (input) => parseTimeArgument(input) })();
