/**
 * The registration flow over real HTTP with tokens from the real identity provider:
 * register → list pending → approve (allowed and refused) → key delivered once → reject.
 * Users' operations are called by name through the SDK (approval as `svc devices approve --yes`
 * sends it); the runtime's side (POST /auth/device and its status poll) has no catalog entry and
 * is called raw, as the runtime calls it.
 */
import { generateDeviceIdentity, keyFingerprint } from '@svc/common';
import { expectRefused } from './fixtures/expect-error';
import { pollRegistration, registrationProof, requestRegistration, TestServer } from './fixtures/test-server';
import { Storage } from '../apps/server/src/storage/storage.port';
import { DEVICES, REGISTRATIONS } from '../apps/server/src/storage/records';
import { FleetUser, useFleet } from './fixtures/fleet';

const INFO = { hostname: 'edge-1', platform: 'linux', architecture: 'aarch64', os_version: 'Debian 12' };
/** A well-formed public key for requests whose polls these tests do not sign. */
const PUBLIC_KEY = generateDeviceIdentity().publicKey;

describe('device registration', () => {
  const fleet = useFleet({
    env: { REGISTRATION_RATE_LIMIT: '1000', MAX_PENDING_REGISTRATIONS: '5' },
    orgs: { acme: { owner: 'boss@acme.test', members: { 'member@acme.test': 'editor' } } },
  });
  let server: TestServer;
  const as = (email: string) => fleet.as(email);
  /** devices_approve as the REST operation (`svc devices approve --yes`), naming the request by its id. */
  const approve = (user: FleetUser, requestId: string) => user.client.call('devices_approve', { device: requestId });
  const listed = async (user: FleetUser, id: string) => (await user.run('devices_list', {})).find((d) => d.id === id);

  beforeAll(() => {
    server = fleet.server;
  });

  it('runs the whole flow: pending, approval, key exactly once, then rejection', async () => {
    const alice = await as('alice@example.test');
    const identity = generateDeviceIdentity();
    const fingerprint = keyFingerprint(identity.publicKey);
    const reg = await server.api.post('/auth/device', { device_id: 'dev-flow-1', owner_scope: 'user:alice@example.test', device_info: INFO, public_key: identity.publicKey });
    expect(reg.status).toBe(201);
    expect(reg.body).toEqual({ request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/), fingerprint });
    const requestId = reg.body.request_id;
    const poll = () => pollRegistration(server, requestId, { identity });

    expect((await poll()).body).toEqual({ status: 'pending' });

    const pending = await alice.run('devices_list', {});
    expect(pending).toContainEqual(
      expect.objectContaining({
        id: requestId,
        status: 'pending',
        hostname: 'edge-1',
        platform: 'linux',
        owner: 'user:alice@example.test',
        device_id: 'dev-flow-1',
        requester: expect.stringContaining('dev-flow-1'),
        fingerprint,
        source_address: '127.0.0.1',
      }),
    );
    expect(pending.find((d) => d.id === requestId)!.key_mismatch).toBeUndefined();

    const stranger = await as('mallory@example.test');
    expect(await stranger.run('devices_list', {})).toEqual([]);
    // Raw: the error answer's whole shape (its requestId), the REST contract.
    const refused = await server.api.post('/devices/approve', { request_id: requestId }, stranger.caller);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ statusCode: 403, code: 'FORBIDDEN', message: expect.stringContaining('Access denied'), requestId: expect.any(String) });

    expect(await approve(alice, requestId)).toEqual({ status: 'approved', device_id: 'dev-flow-1', fingerprint });

    const first = await poll();
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'approved', api_key: expect.stringMatching(/^svc_[A-Za-z0-9_-]{43}$/), device_id: 'dev-flow-1' });
    const second = await poll();
    expect(second.status).toBe(410);
    expect(JSON.stringify(second.body)).not.toContain(first.body.api_key);

    expect(await alice.run('devices_list', {})).toEqual([{ id: 'dev-flow-1', name: 'edge-1', status: 'offline', owner: 'user:alice@example.test' }]);
    expect(await alice.route('device_status.one', { device: 'dev-flow-1' })).toEqual({ status: 'offline', health: 'unknown', uptime: null, last_seen: null });

    expect(await alice.run('devices_reject', { device: 'dev-flow-1' })).toEqual({ status: 'rejected' });
    await expectRefused(alice.route('device_status.one', { device: 'dev-flow-1' }), 404);
  });

  it('stores only a hash of the API key', async () => {
    const requestId = await requestRegistration(server, 'dev-hash', 'user:alice@example.test');
    await approve(await as('alice@example.test'), requestId);
    const key = (await pollRegistration(server, requestId)).body.api_key as string;
    const storage = server.app.get(Storage);
    const device = await storage.collection(DEVICES).findOne({ id: 'dev-hash' });
    const registration = await storage.collection(REGISTRATIONS).findOne({ id: requestId });
    expect(JSON.stringify(device)).not.toContain(key);
    expect(JSON.stringify(registration)).not.toContain(key);
    expect(device!.apiKeyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(registration!.sealedApiKey).toBeNull();
    expect(device).toMatchObject({ publicKey: registration!.publicKey, fingerprint: keyFingerprint(registration!.publicKey) });
  });

  it('rejects a pending request, and the runtime then sees rejected', async () => {
    const alice = await as('alice@example.test');
    const requestId = await requestRegistration(server, 'dev-rejected', 'user:alice@example.test');
    expect(await alice.run('devices_reject', { device: requestId })).toEqual({ status: 'rejected' });
    expect((await pollRegistration(server, requestId)).body).toEqual({ status: 'rejected' });
    await expectRefused(approve(alice, requestId), 404);
    expect(await listed(alice, requestId)).toBeUndefined();
  });

  it('lets org admins, and only them, approve for an org scope', async () => {
    const boss = await as('boss@acme.test');
    const member = await as('member@acme.test');
    const requestId = await requestRegistration(server, 'dev-org', 'org:acme');
    expect(await listed(member, requestId)).toBeUndefined();
    await expectRefused(approve(member, requestId), 403);
    expect(await boss.client.call('devices_approve', { device: 'dev-org' })).toEqual({ status: 'approved', device_id: 'dev-org', fingerprint: expect.any(String) });
    expect(await member.run('devices_list', {})).toContainEqual(expect.objectContaining({ id: 'dev-org', owner: 'org:acme' }));
  });

  it('refuses the admin key as an approver: it is not a device credential', async () => {
    const requestId = await requestRegistration(server, 'dev-admin-key', 'user:alice@example.test');
    await expectRefused(fleet.admin.run('devices_approve', { device: requestId }), 403);
  });

  it('caps pending requests per owner scope', async () => {
    for (let i = 0; i < 5; i++) await requestRegistration(server, `dev-cap-${i}`, 'user:capped@example.test');
    const res = await server.api.post('/auth/device', { device_id: 'dev-cap-x', owner_scope: 'user:capped@example.test', device_info: INFO, public_key: PUBLIC_KEY });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
  });

  it('expires pending requests after the 60-minute approval window', async () => {
    const alice = await as('alice@example.test');
    const requestId = await requestRegistration(server, 'dev-expiring', 'user:alice@example.test');
    server.clock.advance(61 * 60 * 1000);
    try {
      // Expired is indistinguishable from unknown, even to the key's holder.
      expect((await pollRegistration(server, requestId)).status).toBe(401);
      expect(await listed(alice, requestId)).toBeUndefined();
      await expectRefused(approve(alice, requestId), 404);
    } finally {
      server.clock.advance(-61 * 60 * 1000);
    }
  });

  it('re-keys a device its owner approves again, and refuses a stranger taking over its id', async () => {
    const alice = await as('alice@example.test');
    const mallory = await as('mallory@example.test');
    const identity = generateDeviceIdentity();
    const firstId = await requestRegistration(server, 'dev-rekey', 'user:alice@example.test', { identity });
    await approve(alice, firstId);
    const oldKey = (await pollRegistration(server, firstId)).body.api_key;

    const hijack = await requestRegistration(server, 'dev-rekey', 'user:mallory@example.test');
    await expectRefused(approve(mallory, hijack), 409);

    const againId = await requestRegistration(server, 'dev-rekey', 'user:alice@example.test', { identity });
    await approve(alice, againId);
    const newKey = (await pollRegistration(server, againId)).body.api_key;
    expect(newKey).not.toBe(oldKey);
  });

  describe('bad input on POST /auth/device', () => {
    const good = { device_id: 'dev-bad', owner_scope: 'user:alice@example.test', device_info: INFO, public_key: PUBLIC_KEY };
    const cases: [string, unknown, RegExp][] = [
      ['missing device_id', { ...good, device_id: undefined }, /device_id/],
      ['missing owner_scope', { ...good, owner_scope: undefined }, /owner_scope/],
      ['missing device_info', { ...good, device_info: undefined }, /device_info/],
      ['missing hostname', { ...good, device_info: { ...INFO, hostname: undefined } }, /hostname/],
      ['unknown owner-scope format', { ...good, owner_scope: 'team:x' }, /owner_scope/],
      ['malformed user scope', { ...good, owner_scope: 'user:not-an-email' }, /owner_scope/],
      ['upper-case e-mail scope', { ...good, owner_scope: 'user:Alice@Example.test' }, /owner_scope/],
      ['wrong type', { ...good, device_id: 42 }, /device_id/],
      ['oversize field', { ...good, device_info: { ...INFO, hostname: 'h'.repeat(300) } }, /hostname/],
      ['oversize device id', { ...good, device_id: 'd'.repeat(200) }, /device_id/],
      ['extra field', { ...good, extra: true }, /unknown field extra/],
      ['extra info field', { ...good, device_info: { ...INFO, kernel: '6.1' } }, /unknown field device_info.kernel/],
      ['not an object', [1, 2], /./],
      ['missing public_key', { ...good, public_key: undefined }, /public_key/],
      ['public_key not base64url', { ...good, public_key: `${PUBLIC_KEY.slice(0, 42)}+` }, /public_key/],
      ['public_key padded', { ...good, public_key: `${PUBLIC_KEY}=` }, /public_key/],
      ['public_key of 64 bytes', { ...good, public_key: Buffer.alloc(64, 1).toString('base64url') }, /public_key/],
      ['public_key not a string', { ...good, public_key: 42 }, /public_key/],
    ];
    it.each(cases)('%s → 400 with a clear message', async (_name, body, message) => {
      const res = await server.api.post('/auth/device', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'INVALID_INPUT', requestId: expect.any(String) });
      expect(res.body.message).toMatch(message);
    });

    it('malformed JSON → 400', async () => {
      const res = await server.api.call('POST', '/auth/device', {}, undefined, '{"device_id":');
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/not valid JSON/);
    });

    it('oversize body → 413', async () => {
      const res = await server.api.post('/auth/device', { ...good, padding: 'x'.repeat(100_000) });
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
    });

    it('status poll without or with a malformed request_id → 400, unknown → 401 (as for no proof)', async () => {
      expect((await server.api.get('/auth/device/status')).status).toBe(400);
      expect((await server.api.get('/auth/device/status?request_id=%3Cscript%3E')).status).toBe(400);
      const unknown = 'req_00000000000000000000000000000000';
      const headers = registrationProof(server, unknown, generateDeviceIdentity());
      expect((await pollRegistration(server, unknown, { headers })).status).toBe(401);
    });
  });
});

describe('device registration rate limit', () => {
  const fleet = useFleet({ env: { REGISTRATION_RATE_LIMIT: '3' } });
  let server: TestServer;
  beforeAll(() => {
    server = fleet.server;
  });

  it('limits registrations per source address per minute', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await server.api.post('/auth/device', { device_id: `rl-${i}`, owner_scope: 'user:a@example.test', device_info: INFO, public_key: PUBLIC_KEY });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    server.clock.advance(61_000);
    expect((await server.api.post('/auth/device', { device_id: 'rl-later', owner_scope: 'user:a@example.test', device_info: INFO, public_key: PUBLIC_KEY })).status).toBe(201);
  });
});
