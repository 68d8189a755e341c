/**
 * Concurrent edits of one device's shares: interleaved requests must not lose each other's updates
 * (each write is a compare-and-set on the device's revision, retried on a lost race). Over HTTP the
 * embedded store rarely interleaves (its calls finish without yielding to the event loop), so the
 * first test also drives the running server's AccessService with calls started together, which
 * interleave between read and write as requests against MongoDB do.
 */
import { Caller } from './fixtures/api-client';
import { useFleet } from './fixtures/fleet';
import type { TestServer } from './fixtures/test-server';
import { AccessService } from '../apps/server/src/access/access.service';
import type { UserPrincipal } from '../apps/server/src/auth/principal';

const TEN = Array.from({ length: 10 }, (_, i) => `user${i}@race.test`);
const principal: UserPrincipal = { kind: 'user', email: 'owner@race.test', scopes: ['user:owner@race.test'], memberships: [], admin: false };

describe('concurrent share edits', () => {
  const fleet = useFleet({ users: { owner: 'owner@race.test' }, devices: { 'race-0': { owner: 'owner' }, 'race-1': { owner: 'owner' }, 'race-2': { owner: 'owner' } } });
  let server: TestServer;
  let owner: Caller;
  const shares = async (device: string) => {
    const res = await server.api.get(`/devices/${device}/access`, owner);
    expect(res.status).toBe(200);
    return (res.body as { email?: string; org_id?: string; role: string }[]).map((entry) => entry.email ?? entry.org_id).sort();
  };

  beforeAll(() => {
    server = fleet.server;
    owner = fleet.user('owner').caller;
  });

  it('ten device_access_add started together for different users keep ten shares', async () => {
    const access = server.app.get(AccessService);
    const added = await Promise.all(TEN.map((email) => access.add(principal, 'race-0', email, 'viewer')));
    expect(added).toEqual(TEN.map(() => ({ status: 'added' })));
    expect(await shares('race-0')).toEqual([...TEN].sort());
  });

  it('ten concurrent device_access_add over HTTP keep ten shares', async () => {
    const answers = await Promise.all(TEN.map((email) => server.api.post('/devices/race-1/access', { email_or_org_id: email, role: 'viewer' }, owner)));
    expect(answers.map((res) => res.status)).toEqual(TEN.map(() => 200));
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
    const viewer = await server.login(TEN[9]);
    const listed = await server.api.get('/devices', viewer);
    expect((listed.body as { id: string }[]).map((device) => device.id)).toEqual(['race-0', 'race-2']);
  });
});
