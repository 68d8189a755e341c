/**
 * A `device` parameter is an id or a name. When it is one reachable device's id and another
 * reachable device's name, it is ambiguous: otherwise whoever shares a device with a chosen id
 * would capture every command addressed to the victim's device by name.
 */
import { expectError } from './fixtures/expect-error';
import { registerDevice, requestRegistration, TestServer } from './fixtures/test-server';
import { useFleet } from './fixtures/fleet';

describe('device references', () => {
  const fleet = useFleet({});
  let server: TestServer;

  beforeAll(async () => {
    server = fleet.server;
    const alice = await server.login('alice@ref.test');
    const mallory = await server.login('mallory@ref.test');
    const requestId = await requestRegistration(server, 'ref-alice-1', 'user:alice@ref.test', 'prod-db');
    expect((await server.api.post('/devices/approve', { request_id: requestId }, alice)).status).toBe(200);
    await registerDevice(server, 'prod-db', 'user:mallory@ref.test', mallory);
    const shared = await server.api.post('/devices/prod-db/access', { email_or_org_id: 'alice@ref.test', role: 'editor' }, mallory);
    expect(shared.status).toBe(200);
  });

  it('answers 409 naming both ids when a reference is one device\'s id and another\'s name', async () => {
    const alice = await server.login('alice@ref.test');
    const res = await server.api.get('/devices/prod-db/status', alice);
    expectError(res, 409, 'CONFLICT');
    expect(res.body.message).toContain('ref-alice-1');
    expect(res.body.message).toContain('prod-db');
    expectError(await server.api.post('/devices/prod-db/access', { email_or_org_id: 'x@ref.test', role: 'viewer' }, alice), 409, 'CONFLICT');
  });

  it('reports the ambiguity per item in a batch', async () => {
    const res = await server.api.post('/devices/status', { devices: ['prod-db'] }, await server.login('alice@ref.test'));
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([{ device: 'prod-db', error: expect.stringContaining('ref-alice-1'), code: 'CONFLICT' }]);
  });

  it('still resolves the unambiguous id, and the reference for a caller who sees one of the two', async () => {
    expect((await server.api.get('/devices/ref-alice-1/status', await server.login('alice@ref.test'))).status).toBe(200);
    expect((await server.api.get('/devices/prod-db/status', await server.login('mallory@ref.test'))).status).toBe(200);
  });
});
