import { Injectable } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { DEVICE_REMOVED, DeviceRemovedEvent, IN_REMOVAL_TRANSACTION } from './device-events';

@Injectable()
class Listener {
  readonly seen: string[] = [];
  fail = false;

  @OnEvent(DEVICE_REMOVED, IN_REMOVAL_TRANSACTION)
  async removed(event: DeviceRemovedEvent): Promise<void> {
    await Promise.resolve();
    if (this.fail) throw new Error(`could not clean up ${event.deviceId}`);
    this.seen.push(event.deviceId);
  }
}

describe('DEVICE_REMOVED', () => {
  async function world() {
    const moduleRef = await Test.createTestingModule({ imports: [EventEmitterModule.forRoot()], providers: [Listener] }).compile();
    await moduleRef.init();
    return { events: moduleRef.get(EventEmitter2), listener: moduleRef.get(Listener), close: () => moduleRef.close() };
  }

  it('is awaited: the listener has finished when emitAsync resolves', async () => {
    const { events, listener, close } = await world();
    await events.emitAsync(DEVICE_REMOVED, new DeviceRemovedEvent('d1'));
    expect(listener.seen).toEqual(['d1']);
    await close();
  });

  it("reaches the publisher with a listener's failure (so the removal's transaction is undone)", async () => {
    const { events, listener, close } = await world();
    listener.fail = true;
    await expect(events.emitAsync(DEVICE_REMOVED, new DeviceRemovedEvent('d2'))).rejects.toThrow('could not clean up d2');
    await close();
  });
});
