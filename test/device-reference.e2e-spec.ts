/**
 * A `device` parameter is an id or a name, resolved in tiers: the caller's own devices (id, then
 * name) before the devices shared with it (id, then name). Whoever shares a device with the victim
 * must not capture, or block, a reference to one of the victim's own devices: not by registering
 * theirs under the victim's device name, nor by naming theirs after the victim's device id or name.
 * Operations are called by name through the SDK, and the real `svc` binary runs what a user types.
 */
import { expectRefused } from './fixtures/expect-error';
import { registerDevice, TestServer } from './fixtures/test-server';
import { useFleet } from './fixtures/fleet';

const ALICE = 'alice@ref.test';
const MALLORY = 'mallory@ref.test';

describe('device references', () => {
  // Alice's device: id ref-alice-1, name prod-db, with a real runtime (exec answers only there).
  const fleet = useFleet({ users: { alice: ALICE, mallory: MALLORY }, devices: { 'ref-alice-1': { owner: 'alice', hostname: 'prod-db', runtime: true } } });
  let server: TestServer;

  /** A device of Mallory's, registered with this hostname as its name and shared with Alice. */
  async function mallorys(id: string, hostname: string, role: 'viewer' | 'editor'): Promise<void> {
    await registerDevice(server, id, `user:${MALLORY}`, fleet.user('mallory').caller, { hostname });
    await fleet.user('mallory').run('device_access_add', { device: id, email_or_org_id: ALICE, role });
  }

  beforeAll(async () => {
    server = fleet.server;
    await mallorys('prod-db', 'mal-prod', 'editor'); // its id is Alice's device name
    await mallorys('mal-named', 'prod-db', 'viewer'); // its name is Alice's device name
    await mallorys('mal-id', 'ref-alice-1', 'viewer'); // its name is Alice's device id
    await mallorys('mal-twin-1', 'twin', 'viewer');
    await mallorys('mal-twin-2', 'twin', 'viewer');
  });

  it("resolves the caller's own device, by id or by name, whatever the devices shared with it are called", async () => {
    const alice = fleet.user('alice');
    expect(await alice.run('device_show', { device: 'prod-db' })).toMatchObject({ id: 'ref-alice-1', name: 'prod-db' });
    expect(await alice.run('device_show', { device: 'ref-alice-1' })).toMatchObject({ id: 'ref-alice-1' });
    const ran = await alice.svc(['exec', 'ref-alice-1', '--', 'true']);
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    expect((await alice.svc(['exec', 'prod-db', '--', 'true'])).code).toBe(0);
  });

  it('still reaches a shared device by its id, and by a name none of her own devices has', async () => {
    const alice = fleet.user('alice');
    expect(await alice.run('device_show', { device: 'mal-id' })).toMatchObject({ id: 'mal-id', name: 'ref-alice-1' });
    expect(await alice.run('device_show', { device: 'mal-prod' })).toMatchObject({ id: 'prod-db' });
    expect(await fleet.user('mallory').run('device_show', { device: 'prod-db' })).toMatchObject({ id: 'prod-db', name: 'mal-prod' });
  });

  it('answers 409 naming both ids for two devices of one tier with the same name, per item in a batch', async () => {
    const alice = fleet.user('alice');
    await expectRefused(alice.route('device_status.one', { device: 'twin' }), 409, 'CONFLICT', /(?=.*mal-twin-1)(?=.*mal-twin-2)/);
    const res = (await alice.run('device_status', { devices: ['twin', 'prod-db'] })) as { results: unknown[] };
    expect(res.results).toEqual([
      { device: 'twin', error: expect.stringContaining('mal-twin-1'), code: 'CONFLICT' },
      expect.objectContaining({ device: 'prod-db', status: 'online' }),
    ]);
  });

  it("refuses a rename to another device's id, whoever owns it, through the real CLI", async () => {
    const toAlicesId = await fleet.user('mallory').svc(['devices', 'rename', 'mal-twin-1', 'ref-alice-1']);
    expect(toAlicesId.code).not.toBe(0);
    expect(toAlicesId.stderr).toMatch(/ref-alice-1.*is the id of another device/);
    const toSharedId = await fleet.user('alice').svc(['devices', 'rename', 'ref-alice-1', 'mal-twin-2']);
    expect(toSharedId.stderr).toMatch(/is the id of another device/);
    expect(await fleet.user('mallory').run('device_show', { device: 'mal-twin-1' })).toMatchObject({ name: 'twin' });
    expect(await fleet.user('alice').run('device_show', { device: 'ref-alice-1' })).toMatchObject({ name: 'prod-db' });
    // Its own id is no other device's: allowed, and harmless.
    await fleet.user('mallory').run('device_rename', { device: 'mal-twin-1', name: 'mal-twin-1' });
  });

  it("writes the device's id, not the name it was asked by, into svc ssh-config's ProxyCommand", async () => {
    const answer = (await fleet.user('alice').svcJson(['ssh-config', 'prod-db', '--json'])) as { host: string; device: string; proxy_command: string; config: string };
    expect(answer).toMatchObject({ host: 'prod-db', device: 'ref-alice-1' });
    expect(answer.proxy_command).toMatch(/ forward --stdio ref-alice-1 22$/);
    expect(answer.config).toContain('  HostName ref-alice-1\n');
  });
});
