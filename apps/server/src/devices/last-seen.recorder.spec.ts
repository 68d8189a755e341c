import { SystemClock } from '../common/clock';
import type { TunnelRegistry } from '../relay/tunnel-registry.service';
import type { DevicesRepository } from './records/devices.repository';
import { LastSeenRecorder } from './last-seen.recorder';

/** A repository that remembers each recordLastSeen call's device ids. */
function recording() {
  const calls: string[][] = [];
  const devices = { recordLastSeen: async (ids: readonly string[]) => (calls.push([...ids]), ids.length) } as unknown as DevicesRepository;
  const registry = { onPresence: () => undefined } as unknown as TunnelRegistry;
  return { calls, recorder: new LastSeenRecorder(devices, new SystemClock(), registry) };
}

const ids = (count: number) => Array.from({ length: count }, (_, i) => `device-${i}`);
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('LastSeenRecorder', () => {
  it('writes the devices that disconnect together (a server stop) in a few storage calls, not one per device', async () => {
    const { calls, recorder } = recording();
    for (const id of ids(1000)) recorder.disconnected(id);
    await turn();
    await recorder.onApplicationShutdown();
    expect(calls.length).toBe(2);
    expect(calls.flat().sort()).toEqual(ids(1000).sort());
  });

  it('on shutdown, writes every device touched inside its interval rather than dropping it', async () => {
    const { calls, recorder } = recording();
    for (const id of ids(10)) recorder.connected(id);
    await turn();
    expect(calls).toEqual([ids(10)]);
    // Disconnecting right after connecting is inside the interval: a trailing write, due later.
    for (const id of ids(10)) recorder.disconnected(id);
    await turn();
    expect(calls.length).toBe(1);
    await recorder.onApplicationShutdown();
    expect(calls.slice(1).flat().sort()).toEqual(ids(10).sort());
  });
});
