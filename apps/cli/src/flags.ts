import type { OperationName } from '@svc/common/operations';
import { parseTimeArgument, TIME_ARGUMENT_HELP } from './time-argument';
import { booleanFlag, paramArg, ParamSource, stringFlag, stringsFlag } from './catalog-flags';

/**
 * The arguments and flags several commands share, each derived from the parameter of the
 * command's own operation (catalog-flags.ts), so every command names and shows them the same way.
 */
export const deviceArg = (source: ParamSource) => paramArg(source as 'device_access_list', 'device', { description: 'device name or id' });

/** A [Batch] operation's `device`: the argument, or `--devices a,b,c` (batchTarget). */
export const batchDeviceArg = (operation: OperationName, description = 'device name or id (or --devices)') => paramArg(operation as 'device_status', 'device', { description });

export const devicesFlag = (operation: OperationName) =>
  stringsFlag(operation as 'device_status', 'devices', { description: 'several devices, comma-separated names or ids (instead of the device argument)', delimiter: ',' });

export const roleFlag = (operation: 'device_access_add' | 'org_members_add') => stringFlag(operation, 'role', { description: 'role to grant' });

/** `device` xor `devices` for [Batch] operations: the argument, or `--devices a,b,c`. */
export function batchTarget(device: string | undefined, devices: string[] | undefined): { device?: string; devices?: string[] } {
  if (devices && devices.length > 0) return device === undefined ? { devices } : { device, devices };
  return device === undefined ? {} : { device };
}

export const orgArg = (operation: OperationName) => paramArg(operation as 'org_members_list', 'org_id', { name: 'org', description: 'organization id' });

export const deploymentArg = (operation: OperationName) => paramArg(operation as 'device_deployment_rm', 'deployment_id', { name: 'deployment', description: 'deployment id (svc deployments list shows them)' });

export const deploymentFlag = (operation: OperationName) => stringFlag(operation as 'device_deployment_show', 'deployment_id', { description: 'deployment id (the active deployment when omitted)' });

export const activeFlag = (operation: 'device_deployment_new' | 'device_deployment_clone') =>
  booleanFlag(operation, 'active', { description: 'make it the active deployment at once (the device stops the jobs of the previous one)' });

/** A point in time for --since/--until, as journalctl takes it (time-argument.ts); sent as ISO 8601. */
export const timeFlag = (source: ParamSource, param: 'since' | 'until', description: string) =>
  stringFlag(source as 'device_audit_logs', param, { description: `${description}: ${TIME_ARGUMENT_HELP}`, parse: async (input) => parseTimeArgument(input) });
