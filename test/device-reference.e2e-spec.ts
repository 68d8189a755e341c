/**
 * A `device` parameter is an id or a name. When it is one reachable device's id and another
 * reachable device's name, it is ambiguous: otherwise whoever shares a device with a chosen id
 * would capture every command addressed to the victim's device by name. Operations are called by
 * name through the SDK.
 */
import { expectRefused } from './fixtures/expect-error';
import { registerDevice, requestRegistration, TestServer } from './fixtures/test-server';
import { useFleet } from './fixtures/fleet';

describe('device references', () => {
  const fleet = useFleet({});
  let server: TestServer;

  beforeAll(async () => {
    server = fleet.server;
    const alice = await fleet.as('alice@ref.test');
    const mallory = await fleet.as('mallory@ref.test');
    const requestId = await requestRegistration(server, 'ref-alice-1', 'user:alice@ref.test', 'prod-db');
    await alice.run('devices_approve', { device: requestId });
    await registerDevice(server, 'prod-db', 'user:mallory@ref.test', mallory.caller);
    await mallory.run('device_access_add', { device: 'prod-db', email_or_org_id: 'alice@ref.test', role: 'editor' });
  });

  it('answers 409 naming both ids when a reference is one device\'s id and another\'s name', async () => {
    const alice = await fleet.as('alice@ref.test');
    await expectRefused(alice.route('device_status.one', { device: 'prod-db' }), 409, 'CONFLICT', /(?=.*ref-alice-1)(?=.*prod-db)/);
    await expectRefused(alice.run('device_access_add', { device: 'prod-db', email_or_org_id: 'x@ref.test', role: 'viewer' }), 409, 'CONFLICT');
  });

  it('reports the ambiguity per item in a batch', async () => {
    const res = (await (await fleet.as('alice@ref.test')).run('device_status', { devices: ['prod-db'] })) as { results: unknown[] };
    expect(res.results).toEqual([{ device: 'prod-db', error: expect.stringContaining('ref-alice-1'), code: 'CONFLICT' }]);
  });

  it('still resolves the unambiguous id, and the reference for a caller who sees one of the two', async () => {
    await (await fleet.as('alice@ref.test')).route('device_status.one', { device: 'ref-alice-1' });
    await (await fleet.as('mallory@ref.test')).route('device_status.one', { device: 'prod-db' });
  });
});
