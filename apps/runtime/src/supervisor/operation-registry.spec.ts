import { OperationRegistry } from './operation-registry';

describe('OperationRegistry.abortAll', () => {
  it('aborts every operation and resolves once all are reaped, none left', async () => {
    const registry = new OperationRegistry();
    const reasons: string[] = [];
    for (let i = 0; i < 3; i++) {
      let reap!: () => void;
      const done = new Promise<void>((resolve) => (reap = resolve));
      registry.add({ abort: (reason) => (reasons.push(reason), setImmediate(reap)), done });
    }
    expect(await registry.abortAll('shutdown', 60_000)).toBe(0);
    expect(reasons).toEqual(['shutdown', 'shutdown', 'shutdown']);
    expect(registry.size).toBe(0);
  });

  it('stops waiting after the grace for an operation that never settles, and counts it', async () => {
    const registry = new OperationRegistry();
    registry.add({ abort: () => undefined, done: new Promise<void>(() => undefined) });
    registry.add({ abort: () => undefined, done: Promise.resolve() });
    expect(await registry.abortAll('shutdown', 50)).toBe(1);
  });
});
