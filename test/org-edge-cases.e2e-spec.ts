/**
 * Organization changes that must carry everything tied to the organization along with them:
 * pending registrations on rename and delete, personal shares when a member leaves, and the
 * limits on sharing with and moving devices into organizations.
 */
import { pollRegistration, registerDevice, requestRegistration, TestServer } from './fixtures/test-server';
import { useFleet } from './fixtures/fleet';

describe('organization edge cases', () => {
  const fleet = useFleet({});
  let server: TestServer;
  const as = (email: string) => server.login(email);

  beforeAll(() => {
    server = fleet.server;
  });

  it('renaming an organization carries its pending registrations to the new id', async () => {
    await server.api.post('/orgs', { id: 'ren-a', email: 'ren@edge.test' }, server.admin);
    const admin = await as('ren@edge.test');
    const requestId = await requestRegistration(server, 'edge-ren-1', 'org:ren-a');
    expect((await server.api.patch('/orgs/ren-a', { new_id: 'ren-b' }, admin)).body).toEqual({ status: 'updated' });
    const pending = (await server.api.get('/devices', admin)).body.find((d: { id: string }) => d.id === requestId);
    expect(pending).toMatchObject({ status: 'pending', owner: 'org:ren-b' });
    expect((await server.api.post('/devices/approve', { request_id: requestId }, admin)).status).toBe(200);
    expect((await server.api.get('/devices', admin)).body).toContainEqual(expect.objectContaining({ id: 'edge-ren-1', owner: 'org:ren-b' }));
  });

  it('deleting an organization rejects its pending registrations', async () => {
    await server.api.post('/orgs', { id: 'del-a', email: 'del@edge.test' }, server.admin);
    const requestId = await requestRegistration(server, 'edge-del-1', 'org:del-a');
    expect((await server.api.delete('/orgs/del-a', await as('del@edge.test'))).body).toEqual({ status: 'deleted' });
    expect((await pollRegistration(server, requestId)).body).toEqual({ status: 'rejected' });
  });

  it('a member who leaves loses the personal shares on the organization\'s devices', async () => {
    await server.api.post('/orgs', { id: 'leave-a', email: 'lboss@edge.test' }, server.admin);
    await server.api.post('/orgs/leave-a/members', { email: 'leaver@edge.test', role: 'viewer' }, server.admin);
    const boss = await as('lboss@edge.test');
    const leaver = await as('leaver@edge.test');
    await registerDevice(server, 'edge-leave-1', 'org:leave-a', boss);
    expect((await server.api.post('/devices/edge-leave-1/access', { email_or_org_id: 'leaver@edge.test', role: 'editor' }, boss)).status).toBe(200);
    expect((await server.api.delete('/orgs/leave-a/members/leaver@edge.test', boss)).body).toEqual({ status: 'removed' });
    // The server re-reads memberships on each request; the token stays valid.
    expect((await server.api.get('/devices/edge-leave-1/status', leaver)).status).toBe(404);
    expect((await server.api.get('/devices/edge-leave-1/access', boss)).body).toEqual([]);
  });

  it('refuses to share with an organization that does not exist', async () => {
    const alice = await as('alice@edge.test');
    await registerDevice(server, 'edge-share-1', 'user:alice@edge.test', alice);
    const res = await server.api.post('/devices/edge-share-1/access', { email_or_org_id: 'not-yet-created', role: 'viewer' }, alice);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Organization not found' });
  });

  it('an admin share does not allow moving someone else\'s device into an organization', async () => {
    await server.api.post('/orgs', { id: 'grab', email: 'grabber@edge.test' }, server.admin);
    const owner = await as('owner@edge.test');
    const grabber = await as('grabber@edge.test');
    await registerDevice(server, 'edge-move-1', 'user:owner@edge.test', owner);
    await server.api.post('/devices/edge-move-1/access', { email_or_org_id: 'grabber@edge.test', role: 'admin' }, owner);
    const refused = await server.api.post('/orgs/grab/devices', { device: 'edge-move-1' }, grabber);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/only the owner/);
    expect((await server.api.get('/devices', owner)).body).toContainEqual(expect.objectContaining({ id: 'edge-move-1', owner: 'user:owner@edge.test' }));
  });

  it('names roles in refusals the way tools do (editor, not member)', async () => {
    const owner = await as('owner@edge.test');
    await registerDevice(server, 'edge-role-1', 'user:owner@edge.test', owner);
    await server.api.post('/devices/edge-role-1/access', { email_or_org_id: 'ed@edge.test', role: 'editor' }, owner);
    const res = await server.api.post('/devices/edge-role-1/access', { email_or_org_id: 'x@edge.test', role: 'viewer' }, await as('ed@edge.test'));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('Access denied: your role (editor) does not allow device:manage');
  });
});
