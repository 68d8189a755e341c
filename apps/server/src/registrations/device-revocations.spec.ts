import { Clock, ManualClock } from '../common/clock';
import { EmbeddedStorage } from '../storage/embedded/embedded-storage';
import { ALL_COLLECTIONS } from '../storage/records';
import { RevocationsRepository } from './revocations.repository';
import { DeviceRevocations, REVOCATION_SWEEP_OVERLAP_MS, REVOCATION_SWEEP_PAGE } from './device-revocations';

/** Two server processes ("replicas") sharing one store, each with its own listener (its relay). */
describe('DeviceRevocations', () => {
  let storage: EmbeddedStorage;
  let clock: ManualClock;
  let repository: RevocationsRepository;
  const replica = (own: Clock = clock) => {
    const revocations = new DeviceRevocations(repository, own);
    const closed: string[] = [];
    revocations.onRevoked((deviceId) => void closed.push(deviceId));
    return { revocations, closed };
  };

  beforeEach(() => {
    storage = EmbeddedStorage.open(':memory:', ALL_COLLECTIONS);
    clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    repository = new RevocationsRepository(storage);
  });
  afterEach(() => storage.close());

  it('records the revoked key in storage and tells its own listeners at once', async () => {
    const a = replica();
    clock.advance(1000);
    await a.revocations.revoked({ id: 'pi-1', apiKeyHash: 'hash-1' }, 'removed');
    expect(a.closed).toEqual(['pi-1']);
    expect(await repository.isRevoked('hash-1')).toBe(true);
    expect(await repository.isRevoked('hash-2')).toBe(false);
  });

  it('lets another replica learn it on its next sweep, once, and not re-announce its own', async () => {
    const a = replica();
    const b = replica();
    clock.advance(1000);
    await a.revocations.revoked({ id: 'pi-1', apiKeyHash: 'hash-1' }, 'rekeyed');
    clock.advance(1000);
    await b.revocations.revoked({ id: 'pi-2', apiKeyHash: 'hash-2' }, 'removed');

    expect(await b.revocations.sweep()).toBe(1);
    expect(b.closed).toEqual(['pi-2', 'pi-1']);
    expect(await b.revocations.sweep()).toBe(0);

    expect(await a.revocations.sweep()).toBe(1);
    expect(a.closed).toEqual(['pi-1', 'pi-2']);
  });

  /** A replica's clock off by `ms` from the shared one. */
  const skewed = (ms: number): Clock => ({ now: () => new Date(clock.now().getTime() + ms) });

  it('still learns a revocation dated before one it already acted on (a slow write, a clock behind)', async () => {
    const a = replica();
    const b = replica();
    const lagging = replica(skewed(-2_000));
    clock.advance(10_000);
    await a.revocations.revoked({ id: 'pi-1', apiKeyHash: 'hash-1' }, 'removed');
    expect(await b.revocations.sweep()).toBe(1);
    await lagging.revocations.revoked({ id: 'pi-2', apiKeyHash: 'hash-2' }, 'removed');

    expect(await b.revocations.sweep()).toBe(1);
    expect(b.closed).toEqual(['pi-1', 'pi-2']);
  });

  it('is not blinded by a replica whose clock runs ahead', async () => {
    const ahead = replica(skewed(10 * 60_000));
    const a = replica();
    const b = replica();
    clock.advance(1000);
    await ahead.revocations.revoked({ id: 'pi-1', apiKeyHash: 'hash-1' }, 'removed');
    expect(await b.revocations.sweep()).toBe(1);
    clock.advance(1000);
    await a.revocations.revoked({ id: 'pi-2', apiKeyHash: 'hash-2' }, 'rekeyed');

    expect(await b.revocations.sweep()).toBe(1);
    expect(b.closed).toEqual(['pi-1', 'pi-2']);
  });

  it('reads a burst larger than one page in a single sweep, records sharing an instant across the page edge included', async () => {
    const a = replica();
    const b = replica();
    clock.advance(1000);
    const burst = REVOCATION_SWEEP_PAGE + 5;
    for (let i = 0; i < burst; i++) {
      if (i % 7 === 0) clock.advance(1);
      await a.revocations.revoked({ id: `pi-${i}`, apiKeyHash: `hash-${i}` }, 'removed');
    }

    expect(await b.revocations.sweep()).toBe(burst);
    expect(new Set(b.closed).size).toBe(burst);
    expect(await b.revocations.sweep()).toBe(0);
  });

  it('forgets what it announced once the record leaves the look-back window, without announcing it again', async () => {
    const a = replica();
    const b = replica();
    clock.advance(1000);
    await a.revocations.revoked({ id: 'pi-1', apiKeyHash: 'hash-1' }, 'removed');
    expect(await b.revocations.sweep()).toBe(1);
    for (let i = 0; i < 3; i++) {
      clock.advance(REVOCATION_SWEEP_OVERLAP_MS);
      expect(await b.revocations.sweep()).toBe(0);
    }
    expect(b.closed).toEqual(['pi-1']);
  });

  it('joins a sweep still running instead of announcing its records twice', async () => {
    const a = replica();
    const b = replica();
    clock.advance(1000);
    await a.revocations.revoked({ id: 'pi-1', apiKeyHash: 'hash-1' }, 'removed');
    expect(await Promise.all([b.revocations.sweep(), b.revocations.sweep()])).toEqual([1, 1]);
    expect(b.closed).toEqual(['pi-1']);
  });

  it('keeps going when a listener fails', async () => {
    const a = replica();
    a.revocations.onRevoked(() => {
      throw new Error('boom');
    });
    const after: string[] = [];
    a.revocations.onRevoked((id) => void after.push(id));
    await a.revocations.revoked({ id: 'pi-3', apiKeyHash: 'hash-3' }, 'removed');
    expect(after).toEqual(['pi-3']);
  });

  it('expires records with the retention purge', async () => {
    const a = replica();
    await a.revocations.revoked({ id: 'pi-4', apiKeyHash: 'hash-4' }, 'removed');
    clock.advance(8 * 24 * 60 * 60 * 1000);
    expect(await repository.purgeExpired(clock.now())).toBe(1);
    expect(await repository.isRevoked('hash-4')).toBe(false);
  });
});
