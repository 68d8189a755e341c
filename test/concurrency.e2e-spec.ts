/**
 * Concurrent edits of one device's shares: interleaved requests must not lose each other's updates
 * (each write is a compare-and-set on the device's revision, retried on a lost race). Over HTTP the
 * embedded store rarely interleaves (its calls finish without yielding to the event loop), so the
 * first test also drives the running server's AccessService with calls started together, which
 * interleave between read and write as requests against MongoDB do. REST calls are operations by
 * name through the SDK.
 */
import { FleetUser, useFleet } from './fixtures/fleet';
import { attemptOf } from './fixtures/operation-client';
import type { TestServer } from './fixtures/test-server';
import { AccessService } from '../apps/server/src/access/access.service';
import type { UserPrincipal } from '../apps/server/src/auth/principal';

const TEN = Array.from({ length: 10 }, (_, i) => `user${i}@race.test`);
const principal: UserPrincipal = { kind: 'user', email: 'owner@race.test', scopes: ['user:owner@race.test'], memberships: [], admin: false };

describe('concurrent share edits', () => {
  const fleet = useFleet({ users: { owner: 'owner@race.test' }, devices: { 'race-0': { owner: 'owner' }, 'race-1': { owner: 'owner' }, 'race-2': { owner: 'owner' } } });
  let server: TestServer;
  let owner: FleetUser;
  const shares = async (device: string) => (await owner.run('device_access_list', { device })).map((entry) => ('email' in entry ? entry.email : entry.org_id)).sort();

  beforeAll(() => {
    server = fleet.server;
    owner = fleet.user('owner');
  });

  it('ten device_access_add started together for different users keep ten shares', async () => {
    const access = server.app.get(AccessService);
    const added = await Promise.all(TEN.map((email) => access.add(principal, 'race-0', email, 'viewer')));
    expect(added).toEqual(TEN.map(() => ({ status: 'added' })));
    expect(await shares('race-0')).toEqual([...TEN].sort());
  });

  it('ten concurrent device_access_add over HTTP keep ten shares', async () => {
    const answers = await Promise.all(TEN.map((email) => attemptOf(owner.run('device_access_add', { device: 'race-1', email_or_org_id: email, role: 'viewer' }))));
    expect(answers.map((answer) => answer.ok)).toEqual(TEN.map(() => true));
    expect(await shares('race-1')).toEqual([...TEN].sort());
  });

  it('removes, and adds mixed with removes, started together all land', async () => {
    const access = server.app.get(AccessService);
    const removed = await Promise.all(TEN.map((email) => access.remove(principal, 'race-1', email)));
    expect(removed).toEqual(TEN.map(() => ({ status: 'removed' })));
    expect(await shares('race-1')).toEqual([]);

    for (const email of TEN.slice(0, 5)) await access.add(principal, 'race-2', email, 'viewer');
    const mixed = await Promise.all([
      ...TEN.slice(0, 5).map((email) => access.remove(principal, 'race-2', email)),
      ...TEN.slice(5).map((email) => access.add(principal, 'race-2', email, 'editor')),
    ]);
    expect(mixed.map((answer) => answer.status)).toEqual([...TEN.slice(0, 5).map(() => 'removed'), ...TEN.slice(5).map(() => 'added')]);
    expect(await shares('race-2')).toEqual(TEN.slice(5));
  });

  it('a shared user gains exactly the access the last answer reported', async () => {
    const viewer = await fleet.as(TEN[9]);
    expect((await viewer.run('devices_list', {})).map((device) => device.id)).toEqual(['race-0', 'race-2']);
  });
});
