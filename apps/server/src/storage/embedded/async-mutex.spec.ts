import { AsyncMutex } from './async-mutex';

describe('AsyncMutex', () => {
  it('is idle only while no caller holds it or waits for it', async () => {
    const mutex = new AsyncMutex();
    expect(mutex.idle).toBe(true);
    let releaseFirst!: () => void;
    const first = mutex.runExclusive(() => new Promise<void>((resolve) => (releaseFirst = resolve)));
    const order: string[] = [];
    const second = mutex.runExclusive(() => order.push('second'));
    expect(mutex.idle).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    releaseFirst();
    await first;
    await second;
    expect(order).toEqual(['second']);
    expect(mutex.idle).toBe(true);
  });

  it('is idle again after work that throws', async () => {
    const mutex = new AsyncMutex();
    await expect(mutex.runExclusive(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(mutex.idle).toBe(true);
  });
});
