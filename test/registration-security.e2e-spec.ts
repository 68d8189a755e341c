/**
 * The registration handshake against someone who is not the runtime that asked: a request id
 * alone collects nothing, a second request cannot displace the first, another key cannot take a
 * registered id without its owner, audit entries carry no request id, one address cannot fill an
 * owner's pending budget, and a flood can be rejected in one call. Users' operations are called by
 * name through the SDK (approval as `svc devices approve --yes` sends it); the runtime's side and
 * the bulk reject (no catalog entries) are called raw.
 */
import { DeviceIdentityKeys, DeviceListItem, generateDeviceIdentity, keyFingerprint } from '@svc/common';
import { expectError, expectRefused } from './fixtures/expect-error';
import { rawRequest } from './fixtures/raw-request';
import { pollRegistration, registerDevice, registrationProof, submitRegistration, TestServer, TEST_DEVICE_INFO } from './fixtures/test-server';
import { FleetUser, useFleet } from './fixtures/fleet';

const PROOF_REFUSED = { statusCode: 401, error: 'Unauthorized', code: 'UNAUTHENTICATED', message: 'Registration proof missing or invalid' };

describe('registration security', () => {
  const fleet = useFleet({ env: { MAX_PENDING_REGISTRATIONS: '6', MAX_PENDING_REGISTRATIONS_PER_SOURCE: '3' } });
  let server: TestServer;
  const as = (email: string) => fleet.as(email);
  const seconds = () => Math.floor(server.clock.now().getTime() / 1000);
  const listed = async (user: FleetUser) => (await user.run('devices_list', {})) as DeviceListItem[];
  const pendingOf = async (user: FleetUser, deviceId: string) => (await listed(user)).filter((d) => d.status === 'pending' && d.device_id === deviceId);
  /** devices_approve as the REST operation (`svc devices approve --yes`): these approvals may replace keys. */
  const approve = (requestId: string, user: FleetUser) => user.client.call('devices_approve', { device: requestId });
  const share = (device: string, email: string, role: string, owner: FleetUser) => owner.run('device_access_add', { device, email_or_org_id: email, role });
  /** POST /auth/device from another loopback address: another client, as the server sees it. */
  const postFrom = async (source: string, deviceId: string, ownerScope: string, identity: DeviceIdentityKeys = generateDeviceIdentity()) => {
    const body = JSON.stringify({ device_id: deviceId, owner_scope: ownerScope, device_info: { hostname: deviceId, ...TEST_DEVICE_INFO }, public_key: identity.publicKey });
    return rawRequest(server.url, 'POST', '/auth/device', { body, headers: { 'content-type': 'application/json' }, localAddress: source });
  };

  beforeAll(() => {
    server = fleet.server;
  });

  describe('status poll proof', () => {
    let requestId: string;
    let identity: DeviceIdentityKeys;
    beforeAll(async () => {
      ({ requestId, identity } = await submitRegistration(server, 'sec-poll', 'user:poller@sec.test'));
      await approve(requestId, await as('poller@sec.test'));
    });

    const refusals: [string, () => Record<string, string>][] = [
      ['no proof at all (the request id alone)', () => ({})],
      ['a timestamp without a signature', () => ({ 'x-svc-timestamp': String(seconds()) })],
      ['a signature by another key', () => registrationProof(server, requestId, generateDeviceIdentity())],
      ['a signature of another request id', () => ({ ...registrationProof(server, 'req_ffffffffffffffffffffffffffffffff', identity), 'x-svc-timestamp': String(seconds()) })],
      ['a timestamp other than the signed one', () => ({ ...registrationProof(server, requestId, identity), 'x-svc-timestamp': String(seconds() - 1) })],
      ['a stale timestamp (301 s old)', () => registrationProof(server, requestId, identity, seconds() - 301)],
      ['a timestamp 301 s ahead', () => registrationProof(server, requestId, identity, seconds() + 301)],
      ['a non-canonical timestamp', () => ({ ...registrationProof(server, requestId, identity), 'x-svc-timestamp': `0${seconds()}` })],
      ['a malformed signature', () => ({ 'x-svc-timestamp': String(seconds()), 'x-svc-signature': 'bm90IGEgc2lnbmF0dXJl' })],
    ];
    it.each(refusals)('refuses %s with 401, without the key', async (_name, headers) => {
      const res = await pollRegistration(server, requestId, { headers: headers() });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject(PROOF_REFUSED);
      expect(JSON.stringify(res.body)).not.toMatch(/svc_/);
    });

    it('answers an unknown request id exactly as a known one without proof', async () => {
      const unknown = 'req_00000000000000000000000000000000';
      const other = generateDeviceIdentity();
      const { requestId: _id, ...forUnknown } = (await pollRegistration(server, unknown, { identity: other })).body;
      const { requestId: _id2, ...forKnown } = (await pollRegistration(server, requestId, { headers: {} })).body;
      expect(forUnknown).toEqual(forKnown);
    });

    it('delivers the key, once, to a proof 300 s old from the requesting key', async () => {
      const res = await pollRegistration(server, requestId, { timestamp: seconds() - 300 });
      expect(res.body).toEqual({ status: 'approved', api_key: expect.stringMatching(/^svc_/), device_id: 'sec-poll' });
      expect((await pollRegistration(server, requestId)).status).toBe(410);
    });
  });

  describe('several requests for one device id', () => {
    it('keeps both visible with fingerprint, source and hostname; approving one rejects the other', async () => {
      const owner = await as('twice@sec.test');
      const genuine = await submitRegistration(server, 'sec-twice', 'user:twice@sec.test', { hostname: 'real-box' });
      const impostor = await submitRegistration(server, 'sec-twice', 'user:twice@sec.test', { hostname: 'fake-box' });
      expect(impostor.fingerprint).not.toBe(genuine.fingerprint);

      const pending = await pendingOf(owner, 'sec-twice');
      expect(pending).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ request_id: genuine.requestId, fingerprint: genuine.fingerprint, hostname: 'real-box', source_address: '127.0.0.1' }),
          expect.objectContaining({ request_id: impostor.requestId, fingerprint: impostor.fingerprint, hostname: 'fake-box', source_address: '127.0.0.1' }),
        ]),
      );
      expect(pending).toHaveLength(2);
      expect((await pollRegistration(server, genuine.requestId)).body).toEqual({ status: 'pending' });

      // Which one is meant must be said: the device id alone is ambiguous.
      await expectRefused(approve('sec-twice', owner), 409, 'CONFLICT', new RegExp(genuine.fingerprint));
      expect(await approve(genuine.requestId, owner)).toEqual({ status: 'approved', device_id: 'sec-twice', fingerprint: genuine.fingerprint });
      expect((await pollRegistration(server, impostor.requestId)).body).toEqual({ status: 'rejected' });
      expect((await pollRegistration(server, genuine.requestId)).body).toMatchObject({ status: 'approved' });
      expect(await pendingOf(owner, 'sec-twice')).toEqual([]);
    });
  });

  describe('a registered device id is bound to its key', () => {
    it('flags a request from another key; an admin share may not approve it, the owner may', async () => {
      const owner = await as('bound-owner@sec.test');
      const sharer = await as('bound-admin@sec.test');
      const original = generateDeviceIdentity();
      await registerDevice(server, 'sec-bound', 'user:bound-owner@sec.test', owner.caller, { identity: original });
      await share('sec-bound', 'bound-admin@sec.test', 'admin', owner);

      const takeover = await submitRegistration(server, 'sec-bound', 'user:bound-admin@sec.test');
      const [seen] = await pendingOf(sharer, 'sec-bound');
      expect(seen).toMatchObject({ request_id: takeover.requestId, fingerprint: takeover.fingerprint, key_mismatch: true, registered_fingerprint: keyFingerprint(original.publicKey) });
      await expectRefused(approve(takeover.requestId, sharer), 403, 'FORBIDDEN', /another key.*only its owner/);
      expect((await pollRegistration(server, takeover.requestId)).body).toEqual({ status: 'pending' });

      const byOwner = await submitRegistration(server, 'sec-bound', 'user:bound-owner@sec.test');
      expect((await pendingOf(owner, 'sec-bound'))[0]).toMatchObject({ key_mismatch: true });
      await approve(byOwner.requestId, owner);
      expect((await pollRegistration(server, byOwner.requestId)).body).toMatchObject({ status: 'approved' });
      // Another owner's request is not decided by this approval: it still waits, under the re-key rules.
      expect((await pollRegistration(server, takeover.requestId)).body).toEqual({ status: 'pending' });

      // Now bound to the new key: the original key is the stranger.
      const old = await submitRegistration(server, 'sec-bound', 'user:bound-admin@sec.test', { identity: original });
      expect((await pendingOf(sharer, 'sec-bound')).find((d) => d.request_id === old.requestId)).toMatchObject({ key_mismatch: true, registered_fingerprint: byOwner.fingerprint });
      await expectRefused(approve(old.requestId, sharer), 403, 'FORBIDDEN');
    });

    it('lets an admin share re-key with the same key (the runtime lost its API key)', async () => {
      const owner = await as('same-owner@sec.test');
      const sharer = await as('same-admin@sec.test');
      const identity = generateDeviceIdentity();
      const oldKey = await registerDevice(server, 'sec-same', 'user:same-owner@sec.test', owner.caller, { identity });
      await share('sec-same', 'same-admin@sec.test', 'admin', owner);
      const again = await submitRegistration(server, 'sec-same', 'user:same-admin@sec.test', { identity });
      expect((await pendingOf(sharer, 'sec-same'))[0].key_mismatch).toBeUndefined();
      await approve(again.requestId, sharer);
      const newKey = (await pollRegistration(server, again.requestId)).body.api_key;
      expect(newKey).toMatch(/^svc_/);
      expect(newKey).not.toBe(oldKey);
    });
  });

  it('writes no request id into audit entries a device viewer reads', async () => {
    const owner = await as('audited@sec.test');
    const viewer = await as('watcher@sec.test');
    const identity = generateDeviceIdentity();
    const ids: string[] = [];
    const first = await submitRegistration(server, 'sec-audit', 'user:audited@sec.test', { identity });
    ids.push(first.requestId);
    await approve(first.requestId, owner);
    await share('sec-audit', 'watcher@sec.test', 'viewer', owner);
    for (const request of [await submitRegistration(server, 'sec-audit', 'user:audited@sec.test'), await submitRegistration(server, 'sec-audit', 'user:audited@sec.test', { identity })]) {
      ids.push(request.requestId);
    }
    await owner.run('devices_reject', { device: ids[1] });
    await approve(ids[2], owner);

    const answer = await viewer.route('device_audit_logs.one', { device: 'sec-audit' });
    const text = JSON.stringify(answer);
    expect(answer.logs.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['device.registration_requested', 'device.approved', 'device.rejected']),
    );
    for (const id of ids) expect(text).not.toContain(id);
    expect(text).not.toMatch(/req_/);
    expect(text).toContain(first.fingerprint);
  });

  describe('pending budget per source address', () => {
    it('stops one address at MAX_PENDING_REGISTRATIONS_PER_SOURCE while others still get in', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await postFrom('127.0.0.2', `sec-flood-${i}`, 'user:victim@sec.test')).status);
      expect(statuses).toEqual([201, 201, 201, 429]);
      const refused = await postFrom('127.0.0.2', 'sec-flood-x', 'user:victim@sec.test');
      expect(refused.body).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED', message: expect.stringMatching(/this address/) });
      expect((await postFrom('127.0.0.2', 'sec-flood-other', 'user:someone-else@sec.test')).status).toBe(201);
      expect((await postFrom('127.0.0.3', 'sec-real', 'user:victim@sec.test')).status).toBe(201);
      const pending = await listed(await as('victim@sec.test'));
      expect(pending.filter((p) => p.source_address === '127.0.0.2')).toHaveLength(3);
      expect(pending).toContainEqual(expect.objectContaining({ device_id: 'sec-real', source_address: '127.0.0.3' }));
    });

    it('still caps the owner at MAX_PENDING_REGISTRATIONS across addresses', async () => {
      const statuses: number[] = [];
      for (const source of ['127.0.0.4', '127.0.0.5', '127.0.0.6']) {
        for (let i = 0; i < 3; i++) statuses.push((await postFrom(source, `sec-wide-${source}-${i}`, 'user:wide@sec.test')).status);
      }
      expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 429, 429, 429]);
    });
  });

  describe('bulk reject', () => {
    it('rejects every matching pending request the caller may decide, and only those', async () => {
      const victim = await as('bulk@sec.test');
      const flood = [];
      for (let i = 0; i < 3; i++) flood.push((await postFrom('127.0.0.7', `sec-bulk-${i}`, 'user:bulk@sec.test')).body.request_id as string);
      const genuine = (await postFrom('127.0.0.8', 'sec-bulk-real', 'user:bulk@sec.test')).body.request_id as string;
      const bystander = (await postFrom('127.0.0.7', 'sec-bulk-other', 'user:bystander@sec.test')).body.request_id as string;

      const res = await server.api.post('/devices/registrations/reject', { source_address: '127.0.0.7' }, victim.caller);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'rejected', count: 3 });
      const left = (await listed(victim)).map((d) => d.request_id);
      expect(left).toContain(genuine);
      for (const id of flood) expect(left).not.toContain(id);
      expect((await listed(await as('bystander@sec.test'))).map((d) => d.request_id)).toContain(bystander);

      expect((await server.api.post('/devices/registrations/reject', { device_id: 'sec-bulk-real', owner_scope: 'user:other@sec.test' }, victim.caller)).body).toEqual({ status: 'rejected', count: 0 });
      expect((await server.api.post('/devices/registrations/reject', { device_id: 'sec-bulk-real' }, victim.caller)).body).toEqual({ status: 'rejected', count: 1 });
      expect((await listed(victim)).filter((d) => d.status === 'pending')).toEqual([]);
    });

    it('audits each rejection on its device id', async () => {
      const owner = await as('bulk-audit@sec.test');
      const identity = generateDeviceIdentity();
      await registerDevice(server, 'sec-bulk-audit', 'user:bulk-audit@sec.test', owner.caller, { identity });
      const request = await submitRegistration(server, 'sec-bulk-audit', 'user:bulk-audit@sec.test');
      server.clock.advance(1000);
      expect((await server.api.post('/devices/registrations/reject', { owner_scope: 'user:bulk-audit@sec.test' }, owner.caller)).body).toEqual({ status: 'rejected', count: 1 });
      const logs = (await owner.route('device_audit_logs.one', { device: 'sec-bulk-audit' })).logs as { action: string; details: string; user: string }[];
      expect(logs[0]).toMatchObject({ action: 'device.rejected', user: 'bulk-audit@sec.test', details: expect.stringContaining(request.fingerprint) });
    });

    it('needs a user token and well-formed filters', async () => {
      expectError(await server.api.post('/devices/registrations/reject', {}), 401, 'UNAUTHENTICATED');
      expect((await server.api.post('/devices/registrations/reject', {}, server.admin)).status).toBe(403);
      const { caller } = await as('bulk@sec.test');
      expectError(await server.api.post('/devices/registrations/reject', { source: '127.0.0.7' }, caller), 400, 'INVALID_INPUT', /source/);
      expectError(await server.api.post('/devices/registrations/reject', { device_id: 42 }, caller), 400, 'INVALID_INPUT', /device_id/);
    });
  });
});
