import { randomBytes } from 'node:crypto';
import { ForwardMapping, ForwardSession, InvalidInputError, OperationResults, parseForwardSpec, renderForwardMapping } from '@svc/common';
import type { DeviceStreams } from './device-streams';
import { LocalForwarder, LocalForwarderOptions } from './local-forwarder';

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
