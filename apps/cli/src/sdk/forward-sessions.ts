import { randomBytes } from 'node:crypto';
import {
  Capability,
  capabilitiesOf,
  findOperation,
  ForbiddenError,
  ForwardMapping,
  ForwardSession,
  InvalidInputError,
  OperationResults,
  parseForwardSpec,
  renderForwardMapping,
  roleRefusal,
} from '@svc/common';
import type { DeviceStreams } from './device-streams';
import { LocalForwarder, LocalForwarderOptions } from './local-forwarder';
import type { SvcClient } from './svc-client';

export type ForwardStarted = OperationResults['forward_start'];

/** forward_start, forward_stop and forward_list over some place sessions live. */
export interface ForwardSessionStore {
  start(device: string, specs: string[]): Promise<ForwardStarted>;
  stop(sessionId: string): Promise<{ session_id: string; status: 'stopped' }>;
  list(): Promise<ForwardSession[]>;
}

/** Every spec parsed before anything listens: one bad spec refuses the whole session. */
export function planForward(specs: string[]): ForwardMapping[] {
  if (specs.length === 0) throw new InvalidInputError('Give at least one forward spec, e.g. 8080:80');
  return specs.flatMap((spec) => parseForwardSpec(spec));
}

/**
 * Asked before anything listens: a device the caller cannot see is "not found" now, and one whose
 * role does not allow forwarding (a viewer) is refused now, in AccessPolicy's words, rather than
 * listening and resetting every connection. Answers the device's status (an offline device may
 * come back, so it is not refused).
 */
export async function checkForwardAccess(client: Pick<SvcClient, 'call'>, device: string): Promise<OperationResults['device_status']> {
  const [status, access] = await Promise.all([client.call('device_status', { device }), client.call('device_capabilities', { device })]);
  const missing = (capabilitiesOf(findOperation('forward_start')!) as Capability[]).find((capability) => !access.capabilities.includes(capability));
  if (missing) throw new ForbiddenError(roleRefusal(access.role, missing));
  return status;
}

export function newSessionId(): string {
  return `fwd-${randomBytes(6).toString('hex')}`;
}

/**
 * Listens for every mapping of `specs`; if one cannot listen (port taken, …) the others are closed
 * again and the error is thrown, so a session is all or nothing.
 */
export async function openForwarders(streams: DeviceStreams, device: string, specs: string[], options: LocalForwarderOptions = {}): Promise<LocalForwarder[]> {
  const forwarders = planForward(specs).map((mapping) => new LocalForwarder(streams, device, mapping, options));
  const opened: LocalForwarder[] = [];
  try {
    for (const forwarder of forwarders) {
      await forwarder.listen();
      opened.push(forwarder);
    }
  } catch (error) {
    await Promise.all(opened.map((forwarder) => forwarder.close()));
    throw error;
  }
  return forwarders;
}

export function renderTargets(forwarders: LocalForwarder[]): string[] {
  return forwarders.map((forwarder) => renderForwardMapping(forwarder.mapping as ForwardMapping));
}
