import type { AuthorizedDevice } from './access-policy.service';

/**
 * Has AccessPolicy decide the capability of a client stream's catalog route on the device its
 * path names (ClientStreamRouter binds it): the service calls it once it checked its arguments,
 * so a malformed request is a 400 even for an offline device.
 */
export type AuthorizeDevice = () => Promise<AuthorizedDevice>;
