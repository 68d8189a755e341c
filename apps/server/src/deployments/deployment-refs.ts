import { Capability, NotFoundError } from '@svc/common';
import type { UserPrincipal } from '../auth/principal';
import { AccessPolicy, AuthorizedDevice } from '../authorization/access-policy.service';
import type { DeviceRecord } from '../storage/records';

/** A [Batch] resolve step: the device a reference names, keyed by id, if the caller holds `capability`. */
export function deviceResolver(policy: AccessPolicy, principal: UserPrincipal, capability: Capability) {
  return async (ref: string): Promise<{ key: string; target: DeviceRecord }> => {
    const { device } = await policy.requireDevice(principal, ref, capability);
    return { key: device.id, target: device };
  };
}

/** A [Batch] resolve step that keeps the caller's grant, for answers that depend on it (what a viewer may read). */
export function accessResolver(policy: AccessPolicy, principal: UserPrincipal, capability: Capability) {
  return async (ref: string): Promise<{ key: string; target: AuthorizedDevice }> => {
    const access = await policy.requireDevice(principal, ref, capability);
    return { key: access.device.id, target: access };
  };
}

/** A deployment (or a job in it) that this device does not have. Ids are checked for their form before they get here. */
export function deploymentNotFound(deploymentId: string, jobId?: string): NotFoundError {
  return new NotFoundError(jobId === undefined ? `Deployment ${deploymentId} not found` : `Job ${jobId} not found in deployment ${deploymentId}`);
}
