/**
 * devices_list (`GET /devices`) filters and cursor paging over real HTTP: the default answer keeps
 * the specification's array, `limit`/`cursor` answer `{items, next_cursor}` pages that add up to
 * that array, pages stay stable under inserts, and owned and shared devices merge without repeats.
 * Listings are called by name through the SDK; the refusals of malformed query strings are raw.
 */
import { randomBytes } from 'node:crypto';
import { expectError, expectRefused } from './fixtures/expect-error';
import { FleetUser, useFleet } from './fixtures/fleet';
import { requestRegistration, TestServer } from './fixtures/test-server';
import { DevicesRepository } from '../apps/server/src/devices/records/devices.repository';

type Item = { id: string; name: string; status: string; owner: string; request_id?: string };
type Page = { items: Item[]; next_cursor: string | null };

describe('device listing: filters and paging', () => {
  const fleet = useFleet({
    users: { alice: 'alice@list.test', bob: 'bob@list.test' },
    orgs: { listorg: { owner: 'alice' } },
    devices: {
      ...Object.fromEntries([['ls-a2', 'alpha-2'], ['ls-a1', 'alpha-1'], ['ls-b1', 'beta-1'], ['ls-o1', 'org-box']].map(([id, hostname]) => [id, { owner: 'alice', hostname }])),
      'ls-bob1': { owner: 'bob', shares: { alice: 'viewer' } },
    },
  });
  let server: TestServer;
  let alice: FleetUser;
  let requestId: string;
  /** devices_list with its route's filters and paging (`limit`, `cursor`): an array, or a Page with limit or cursor. */
  const list = async (query: Record<string, unknown> = {}, caller: FleetUser = alice): Promise<any> => caller.run('devices_list', query);
  const ids = (items: Item[]) => items.map((item) => item.id);
  /** Follows next_cursor from the first page (or `from`) to the last; returns every page. */
  const pages = async (query: Record<string, unknown>, caller: FleetUser = alice, from?: string) => {
    const seen: Page[] = [];
    let page: Page = await list({ ...query, cursor: from }, caller);
    seen.push(page);
    while (page.next_cursor !== null) {
      page = await list({ ...query, cursor: page.next_cursor }, caller);
      seen.push(page);
    }
    return seen;
  };
  /** Devices written straight into storage, as approval would have stored them. */
  const seed = async (id: string, ownerScope: string, allowedScopes: string[] = []) => {
    const at = server.clock.now();
    await server.app.get(DevicesRepository).insert({
      id,
      name: `seeded-${id}`,
      ownerScope,
      allowedScopes,
      shares: allowedScopes.map((scope) => ({ scope, role: 'viewer' as const })),
      info: { hostname: id, platform: 'linux', architecture: 'x86_64', os_version: 'Debian 12' },
      apiKeyHash: randomBytes(32).toString('hex'),
      createdAt: at,
      approvedBy: 'seed',
      lastSeen: null,
      historySince: at,
    });
  };

  beforeAll(async () => {
    server = fleet.server;
    alice = fleet.user('alice');
    await alice.run('org_devices_add', { org_id: 'listorg', device: 'ls-o1' });
    requestId = await requestRegistration(server, 'ls-pending', 'user:alice@list.test', 'alpha-new');
  });

  it('answers the array of today without parameters: devices by id, then pending requests', async () => {
    const all: Item[] = await list();
    expect(ids(all)).toEqual(['ls-a1', 'ls-a2', 'ls-b1', 'ls-bob1', 'ls-o1', requestId]);
    expect(all[0]).toEqual({ id: 'ls-a1', name: 'alpha-1', status: 'offline', owner: 'user:alice@list.test' });
    expect(all[4]).toEqual({ id: 'ls-o1', name: 'org-box', status: 'offline', owner: 'org:listorg' });
    expect(all[5]).toMatchObject({ id: requestId, name: 'alpha-new', status: 'pending', owner: 'user:alice@list.test', device_id: 'ls-pending' });
  });

  it.each([
    ['a name prefix, devices and pending requests alike', { name: 'alpha' }, ['ls-a1', 'ls-a2', 'REQUEST']],
    ['a name prefix is case-sensitive', { name: 'Alpha' }, []],
    ['an owner scope', { owner: 'org:listorg' }, ['ls-o1']],
    ['an owner e-mail: a device shared with the caller', { owner: 'bob@list.test' }, ['ls-bob1']],
    ['an owner organization id', { owner: 'listorg' }, ['ls-o1']],
    ['status offline: devices only', { status: 'offline' }, ['ls-a1', 'ls-a2', 'ls-b1', 'ls-bob1', 'ls-o1']],
    ['status pending: requests only', { status: 'pending' }, ['REQUEST']],
    ['status online: nothing without tunnels', { status: 'online' }, []],
    ['filters combine', { owner: 'user:alice@list.test', name: 'alpha', status: 'offline' }, ['ls-a1', 'ls-a2']],
  ])('filters by %s, still as an array', async (_label, query, expected) => {
    expect(ids(await list(query))).toEqual(expected.map((id) => (id === 'REQUEST' ? requestId : id)));
  });

  it('pages add up to the whole list, with next_cursor null on the last page', async () => {
    const whole = ids(await list());
    for (const size of [1, 2, 5, 6, 1000]) {
      const walked = await pages({ limit: size });
      expect(walked.flatMap((page) => ids(page.items))).toEqual(whole);
      expect(walked.slice(0, -1).every((page) => page.items.length === size && page.next_cursor !== null)).toBe(true);
      expect(walked[walked.length - 1].next_cursor).toBeNull();
    }
    expect(await list({ limit: 5 })).toEqual({ items: await list().then((all: Item[]) => all.slice(0, 5)), next_cursor: expect.any(String) });
  });

  it('pages filtered lists, and a cursor alone pages by 100', async () => {
    expect((await pages({ limit: 1, name: 'alpha' })).flatMap((page) => ids(page.items))).toEqual(['ls-a1', 'ls-a2', requestId]);
    expect((await pages({ limit: 2, status: 'pending' })).flatMap((page) => ids(page.items))).toEqual([requestId]);
    const first: Page = await list({ limit: 1 });
    const rest: Page = await list({ cursor: first.next_cursor });
    expect(ids(rest.items)).toEqual(['ls-a2', 'ls-b1', 'ls-bob1', 'ls-o1', requestId]);
    expect(rest.next_cursor).toBeNull();
  });

  it('is stable under inserts: later pages neither repeat nor skip devices', async () => {
    const first: Page = await list({ limit: 2 });
    expect(ids(first.items)).toEqual(['ls-a1', 'ls-a2']);
    await seed('ls-a0', 'user:alice@list.test');
    await seed('ls-az', 'user:alice@list.test');
    const rest = (await pages({ limit: 2 }, alice, first.next_cursor!)).flatMap((page) => ids(page.items));
    expect(rest).toEqual(['ls-az', 'ls-b1', 'ls-bob1', 'ls-o1', requestId]);
  });

  it('merges owned and shared devices by id across pages, each device once', async () => {
    const carol = await fleet.as('carol@list.test');
    await fleet.admin.run('org_create', { id: 'carolorg', email: 'carol@list.test' });
    const expected: string[] = [];
    for (let i = 0; i < 250; i++) {
      const id = `c-${String(i).padStart(3, '0')}`;
      // Owned by carol, by her organization, by dave and shared with carol, or both owned by her
      // organization and shared with her personally.
      const kind = i % 4;
      if (kind === 0) await seed(id, 'user:carol@list.test');
      if (kind === 1) await seed(id, 'org:carolorg');
      if (kind === 2) await seed(id, 'user:dave@list.test', ['user:carol@list.test']);
      if (kind === 3) await seed(id, 'org:carolorg', ['user:carol@list.test']);
      expected.push(id);
    }
    await seed('c-hidden', 'user:dave@list.test');
    const walked = await pages({ limit: 100 }, carol);
    expect(walked.map((page) => page.items.length)).toEqual([100, 100, 50]);
    expect(walked.flatMap((page) => ids(page.items))).toEqual(expected);
    expect(ids(await list({}, carol))).toEqual(expected);
    expect(ids(await list({ owner: 'dave@list.test' }, carol))).toEqual(expected.filter((_, i) => i % 4 === 2));
    const orgPage: Page = await list({ owner: 'org:carolorg', limit: 10 }, carol);
    expect(ids(orgPage.items)).toEqual(expected.filter((_, i) => i % 4 === 1 || i % 4 === 3).slice(0, 10));
    expect(await carol.run('org_devices_list', { org_id: 'carolorg' })).toHaveLength(125);
  });

  it.each([
    ['limit 0', '?limit=0', /limit must be a whole number between 1 and 1000/],
    ['limit 1001', '?limit=1001', /limit/],
    ['a hexadecimal limit', '?limit=0x10', /limit/],
    ['a fractional limit', '?limit=1.5', /limit/],
    ['a repeated limit', '?limit=1&limit=2', /limit/],
    ['a cursor this server did not issue', '?cursor=bm90LWEtY3Vyc29y', /cursor/],
    ['a cursor that is not base64url', '?cursor=a%2Bb', /cursor/],
    ['an unknown status', '?status=broken', /status must be one of online, offline, pending/],
    ['an owner that is no scope, e-mail or organization id', '?owner=user:Not%20An%20Email', /owner must be/],
    ['an empty name prefix', '?name=', /name must not be empty/],
    ['an unknown parameter', '?sort=name', /sort/],
  ])('refuses %s with 400', async (_label, query, message) => {
    // Raw: query strings no SDK call writes (hexadecimal, repeated, unknown parameters), the REST contract.
    expectError(await server.api.get(`/devices${query}`, alice.caller), 400, 'INVALID_INPUT', message);
  });

  it('needs a user token', async () => {
    await expectRefused(fleet.client({}).run('devices_list', { limit: 1 }), 401, 'UNAUTHENTICATED');
  });
});
