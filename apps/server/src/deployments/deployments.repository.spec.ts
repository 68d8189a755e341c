import { EmbeddedStorage } from '../storage/embedded/embedded-storage';
import { ALL_COLLECTIONS, DeploymentRecord } from '../storage/records';
import { DeploymentsRepository, HeadMovedError } from './deployments.repository';

const T0 = new Date('2026-01-01T00:00:00Z');
const record = (id: string, deviceId = 'dev'): DeploymentRecord => ({ id, deviceId, name: null, jobs: [], rollback: null, createdAt: T0, updatedAt: T0, activatedAt: null });

describe('DeploymentsRepository', () => {
  let storage: EmbeddedStorage;
  let repository: DeploymentsRepository;

  beforeEach(() => {
    storage = EmbeddedStorage.open(':memory:', ALL_COLLECTIONS);
    repository = new DeploymentsRepository(storage);
  });
  afterEach(() => storage.close());

  it('answers a device without a head as revision 0 with no active deployment', async () => {
    expect(await repository.head('dev')).toEqual({ id: 'dev', activeDeploymentId: null, revision: 0 });
  });

  it('moves the head compare-and-set: of two writers that read the same head, one wins', async () => {
    const empty = await repository.head('dev');
    const first = await Promise.allSettled([repository.moveHead(empty, { activeDeploymentId: 'a', revision: 10, lastRollback: null }), repository.moveHead(empty, { activeDeploymentId: 'b', revision: 10, lastRollback: null })]);
    expect(first.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((first.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(HeadMovedError);

    const read = await repository.head('dev');
    const second = await Promise.allSettled([repository.moveHead(read, { activeDeploymentId: 'c', revision: 11, lastRollback: null }), repository.moveHead(read, { activeDeploymentId: 'd', revision: 11, lastRollback: null })]);
    expect(second.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await repository.head('dev')).revision).toBe(11);
    await expect(repository.moveHead(read, { activeDeploymentId: 'e', revision: 12, lastRollback: null })).rejects.toBeInstanceOf(HeadMovedError);
  });

  it('finds deployments only through their device, and removes a device with its head', async () => {
    await repository.insert(record('a'));
    await repository.insert(record('b', 'other'));
    await repository.moveHead(await repository.head('dev'), { activeDeploymentId: 'a', revision: 5, lastRollback: null });
    expect(await repository.find('dev', 'b')).toBeNull();
    expect(await repository.revisions(['dev', 'other', 'none'])).toEqual(new Map([['dev', 5]]));
    await repository.removeDevice('dev');
    expect(await repository.list('dev')).toEqual([]);
    expect(await repository.head('dev')).toEqual({ id: 'dev', activeDeploymentId: null, revision: 0 });
    expect(await repository.list('other')).toEqual([record('b', 'other')]);
  });
});
