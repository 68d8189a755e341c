import type { OnEvent } from '@nestjs/event-emitter';

/**
 * Published (emitAsync) inside the storage transaction that removes an approved device: what other
 * features keep about the device (deployments, reports) goes in the same transaction, and a
 * listener that fails undoes the removal.
 */
export const DEVICE_REMOVED = 'device.removed';

export class DeviceRemovedEvent {
  constructor(readonly deviceId: string) {}
}

/** Listeners of DEVICE_REMOVED: a failure reaches the publisher instead of being logged and dropped. */
export const IN_REMOVAL_TRANSACTION: Parameters<typeof OnEvent>[1] = { suppressErrors: false };
