import { ManualClock } from '../common/clock';
import { EmbeddedStorage } from '../storage/embedded/embedded-storage';
import { ALL_COLLECTIONS } from '../storage/records';
import { RevocationsRepository } from '../storage/repositories/revocations.repository';
import { DeviceRevocations } from './device-revocations';

/** Two server processes ("replicas") sharing one store, each with its own listener (its relay). */
describe('DeviceRevocations', () => {
  let storage: EmbeddedStorage;
  let clock: ManualClock;
  let repository: RevocationsRepository;
  const replica = () => {
    const revocations = new DeviceRevocations(repository, clock);
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
