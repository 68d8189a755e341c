/**
 * Audit entries over real HTTP: what each action records, ordering, since/until/max, single and
 * batch queries, retention (audit entries, reports, registration requests) driven by the server's
 * clock, and no secret ever written to an audit entry or a log line. Operations are called by name
 * through the SDK; the users API and /me (no catalog entries) are called raw.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { expectError, expectRefused } from './fixtures/expect-error';
import { FleetUser, OperationClient, useFleet } from './fixtures/fleet';
import { pollRegistration, requestRegistration, TestServer, TEST_ADMIN_KEY } from './fixtures/test-server';
import { DAY_MS } from '../apps/server/src/common/clock';
import { DeviceStreams } from '../apps/cli/src/sdk/device-streams';
import { RetentionJob } from '../apps/server/src/storage/retention.job';
import { AUDIT_ACTIONS } from '../apps/server/src/audit/audit-actions';
import { ReportStore } from '../apps/server/src/deployments/report-store';
import { Storage } from '../apps/server/src/storage/storage.port';
import { AUDIT, REGISTRATIONS, REPORTS } from '../apps/server/src/storage/records';
import { AuditWriter } from '../apps/server/src/audit/audit-writer';

type Entry = { timestamp: string; user: string; action: string; details: string };

describe('audit logs', () => {
  // Before the fleet starts: the server's log lines are read from stdout.
  beforeAll(() => {
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    });
  });
  const fleet = useFleet({
    env: { AUDIT_RETENTION_DAYS: '30', REPORT_RETENTION_DAYS: '3', USERS_NEED_APPROVAL: 'true', USER_AUTO_ACCEPT_DOMAINS: 'audit.test', REGISTRATION_RATE_LIMIT: '1000', RUST_LOG: 'trace' },
    relay: true,
    users: { owner: 'owner@audit.test' },
    orgs: { audco: { owner: 'owner' } },
  });
  let server: TestServer;
  let owner: FleetUser;
  const apiKeys: string[] = [];
  const output: string[] = [];
  const now = () => server.clock.now().toISOString();
  const tick = (ms = 1000) => server.clock.advance(ms);
  /** GET …/audit-logs (device_audit_logs.one) with `query`. */
  const logs = async (device: string, query: Record<string, unknown> = {}, caller: OperationClient = owner): Promise<Entry[]> =>
    (await caller.route('device_audit_logs.one', { device, ...query })).logs;

  async function register(deviceId: string, approver: OperationClient, ownerScope = 'user:owner@audit.test'): Promise<void> {
    const requestId = await requestRegistration(server, deviceId, ownerScope);
    tick();
    await approver.run('devices_approve', { device: requestId });
    apiKeys.push((await pollRegistration(server, requestId)).body.api_key);
  }

  beforeAll(() => {
    server = fleet.server;
    owner = fleet.user('owner');
  });
  afterAll(() => {
    jest.restoreAllMocks();
  });

  it('records registration, approval, sharing and org moves as {timestamp, user, action, details}, newest first', async () => {
    const at: string[] = [now()];
    await register('aud-1', owner);
    at.push(now());
    for (const step of [
      () => owner.run('device_access_add', { device: 'aud-1', email_or_org_id: 'bob@audit.test', role: 'viewer' }),
      () => owner.run('device_access_remove', { device: 'aud-1', email_or_org_id: 'bob@audit.test' }),
      () => owner.run('org_devices_add', { org_id: 'audco', device: 'aud-1' }),
      () => owner.run('org_devices_remove', { org_id: 'audco', device: 'aud-1' }),
    ]) {
      tick();
      at.push(now());
      await step();
    }
    const entries = await logs('aud-1');
    expect(entries).toEqual([
      { timestamp: at[5], user: 'owner@audit.test', action: 'device.removed_from_org', details: expect.stringContaining('org:audco') },
      { timestamp: at[4], user: 'owner@audit.test', action: 'device.moved_to_org', details: expect.stringMatching(/user:owner@audit\.test.*org:audco/) },
      { timestamp: at[3], user: 'owner@audit.test', action: 'device.access_removed', details: expect.stringContaining('user:bob@audit.test') },
      { timestamp: at[2], user: 'owner@audit.test', action: 'device.access_added', details: expect.stringMatching(/user:bob@audit\.test.*viewer/) },
      { timestamp: at[1], user: 'owner@audit.test', action: 'device.approved', details: expect.stringContaining('user:owner@audit.test') },
      { timestamp: at[0], user: 'device:aud-1', action: 'device.registration_requested', details: expect.stringContaining('user:owner@audit.test') },
    ]);
    for (const entry of entries) expect(Object.keys(entry).sort()).toEqual(['action', 'details', 'timestamp', 'user']);
    expect(await owner.run('device_audit_logs', { device: 'aud-1' })).toEqual({ logs: entries });
  });

  it('filters by since (inclusive) and until (exclusive)', async () => {
    const entries = await logs('aud-1');
    const [t5, t4, t3, t2, t1, t0] = entries.map((e) => e.timestamp);
    const actions = (list: Entry[]) => list.map((e) => e.action);
    expect(actions(await logs('aud-1', { since: t2, until: t4 }))).toEqual(['device.access_removed', 'device.access_added']);
    expect(await logs('aud-1', { since: t4 })).toEqual(entries.slice(0, 2));
    expect(await logs('aud-1', { until: t1 })).toEqual(entries.slice(5));
    expect(await logs('aud-1', { since: t5, until: new Date(Date.parse(t5) + 1).toISOString() })).toEqual(entries.slice(0, 1));
    expect(await owner.run('device_audit_logs', { device: 'aud-1', since: t0, until: t3 })).toEqual({ logs: entries.slice(3) });
  });

  it('returns 100 entries by default and honours an explicit max', async () => {
    await register('aud-many', owner);
    for (let i = 0; i < 103; i++) {
      tick(1);
      await owner.run('device_access_add', { device: 'aud-many', email_or_org_id: 'bob@audit.test', role: i % 2 ? 'viewer' : 'editor' });
    }
    const all = await logs('aud-many', { max: 1000 });
    expect(all).toHaveLength(105);
    const stamps = all.map((e) => Date.parse(e.timestamp));
    expect(stamps).toEqual([...stamps].sort((a, b) => b - a));
    expect(await logs('aud-many')).toEqual(all.slice(0, 100));
    expect(await logs('aud-many', { max: 5 })).toEqual(all.slice(0, 5));
    expect(await owner.run('device_audit_logs', { device: 'aud-many', max: 2 })).toEqual({ logs: all.slice(0, 2) });
  });

  it('answers a batch with {results: [{device, logs}]} and a per-item error', async () => {
    expect(await owner.run('device_audit_logs', { devices: ['aud-1', 'aud-many', 'no-such-device'], max: 3 })).toEqual({
      results: [
        { device: 'aud-1', logs: (await logs('aud-1')).slice(0, 3) },
        { device: 'aud-many', logs: (await logs('aud-many')).slice(0, 3) },
        { device: 'no-such-device', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
      ],
    });
    const defaults = (await owner.run('device_audit_logs', { devices: ['aud-many'] })) as { results: { logs: Entry[] }[] };
    expect(defaults.results[0].logs).toHaveLength(100);
    const stranger = await (await fleet.as('stranger@audit.test')).run('device_audit_logs', { devices: ['aud-1'] });
    expect(stranger).toEqual({ results: [{ device: 'aud-1', error: 'Device not found', code: 'DEVICE_NOT_FOUND' }] });
  });

  // Each goes in the query string of GET …/audit-logs and in the body of POST /devices/audit-logs.
  const BAD_QUERIES: [string, Record<string, unknown>][] = [
    ['since not ISO 8601', { since: 'yesterday' }],
    ['until not a date', { until: '2024-13-45T99:00:00Z' }],
    ['since after until', { since: '2030-01-02T00:00:00Z', until: '2030-01-01T00:00:00Z' }],
    ['max 0', { max: 0 }],
    ['max negative', { max: -1 }],
    ['max above 1000', { max: 1001 }],
    ['max not a number', { max: 'abc' }],
    ['max fractional', { max: 1.5 }],
  ];

  it.each(BAD_QUERIES)('refuses %s with 400 on GET and on POST (single)', async (_name, query) => {
    await expectRefused(logs('aud-1', query), 400, 'INVALID_INPUT', /since|until|max/);
    await expectRefused(owner.run('device_audit_logs', { device: 'aud-1', ...query }), 400, 'INVALID_INPUT', /since|until|max/);
  });

  it.each(BAD_QUERIES)('refuses %s with 400 on POST (batch) instead of per-device errors', async (_name, query) => {
    await expectRefused(owner.run('device_audit_logs', { devices: ['aud-1', 'aud-many'], ...query }), 400, 'INVALID_INPUT', /since|until|max/);
  });

  it('writes an entry for every mutating action', async () => {
    const requestId = await requestRegistration(server, 'aud-1', 'user:owner@audit.test');
    await owner.run('devices_reject', { device: requestId });
    await register('aud-gone', owner);
    await owner.run('devices_reject', { device: 'aud-gone' });
    await fleet.admin.run('org_create', { id: 'aud-tmp', email: 'owner@audit.test' });
    await owner.run('org_members_add', { org_id: 'aud-tmp', email: 'm@audit.test', role: 'viewer' });
    await owner.run('org_members_add', { org_id: 'aud-tmp', email: 'm@audit.test', role: 'editor' });
    await owner.run('org_members_remove', { org_id: 'aud-tmp', email: 'm@audit.test' });
    await owner.run('org_update', { id: 'aud-tmp', new_id: 'aud-tmp2' });
    await owner.run('org_delete', { id: 'aud-tmp2' });
    expect((await server.api.get('/me', (await fleet.as('pend@elsewhere.test')).caller)).status).toBe(403);
    expect((await server.api.post('/users/pend@elsewhere.test/approve', undefined, server.admin)).status).toBe(200);
    expect((await server.api.post('/users/chief@elsewhere.test/admin', undefined, server.admin)).status).toBe(200);
    expect((await server.api.post('/users/pend@elsewhere.test/reset-subject', undefined, server.admin)).status).toBe(200);
    // An authorized exec attempt is audited even when the device has no tunnel (503 DEVICE_OFFLINE).
    await expectRefused(owner.run('device_exec', { device: 'aud-1', command: ['true'] }), 503);
    // So are file reads and writes, forwards, shells and container-engine connections. (A sync's summary counts transfers that
    // happened, so it needs an online device: test/files.e2e-spec.ts checks it.)
    await expectRefused(owner.run('device_ls', { path: 'aud-1:/tmp' }), 503);
    const local = mkdtempSync(join(tmpdir(), 'svc-audit-'));
    try {
      writeFileSync(join(local, 'x'), 'hi');
      await expectRefused(owner.run('device_cp', { source: join(local, 'x'), dest: 'aud-1:/tmp/x' }), 503);
      await expectRefused(owner.route('device_sync.delete', { device: 'aud-1', root: '/tmp', paths: ['x'], sync: 'audit-0001' }), 503);
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
    const streams = new DeviceStreams({ host: '127.0.0.1', port: server.tunnel!.port, trust: { ca: readFileSync(server.tunnel!.caFile) }, token: () => owner.caller.token! });
    try {
      await expect(streams.openForward('aud-1', { kind: 'tcp', host: '127.0.0.1', port: 22 })).rejects.toMatchObject({ code: 'DEVICE_OFFLINE' });
      await expect(streams.openShellStream('aud-1', { cols: 80, rows: 24 })).rejects.toMatchObject({ code: 'DEVICE_OFFLINE' });
      await expect(streams.openDocker('aud-1')).rejects.toMatchObject({ code: 'DEVICE_OFFLINE' });
    } finally {
      await streams.close();
    }

    // Every deployment change, and reading a job's log (an offline device: 503, audited all the same). A rollback is the
    // device's own report: test/deployments-api-channel.e2e-spec.ts checks its entry.
    const device = 'aud-1';
    const deployment = (await owner.run('device_deployment_new', { device, active: true })).id;
    await owner.client.deploy(device, deployRequest([serviceJob('web')]));
    const copy = (await owner.run('device_deployment_clone', { device, deployment_id: deployment })).id;
    await owner.run('device_deployment_activate', { device, deployment_id: copy });
    await owner.run('device_undeploy', { device, job_id: 'web' });
    await owner.run('device_deployment_rm', { device, deployment_id: deployment });
    await expectRefused(owner.client.deploymentLogs(device, 'web'), 503);

    await owner.run('device_rename', { device, name: 'aud one' });

    // Straight from storage: first the entries the writer still holds (it writes a turn after the request).
    await server.app.get(AuditWriter, { strict: false }).flush();
    const stored = await server.app.get(Storage).collection(AUDIT).find({});
    const checkedElsewhere: string[] = ['device.files_synced', 'device.deployment_rolled_back', 'access.refused'];
    expect(new Set(stored.map((e) => e.action))).toEqual(new Set(AUDIT_ACTIONS.filter((action) => !checkedElsewhere.includes(action))));
    expect(stored.find((e) => e.action === 'user.approved')).toMatchObject({ user: 'admin-key', details: expect.stringContaining('pend@elsewhere.test') });
    expect(stored.find((e) => e.action === 'device.rejected')).toMatchObject({ user: 'owner@audit.test', deviceId: 'aud-1' });
    for (const entry of stored) expect(entry.expiresAt.getTime() - entry.timestamp.getTime()).toBe(30 * DAY_MS);
  });

  it('does not show a re-registered device id the history of its previous owner', async () => {
    await register('aud-reuse', owner);
    await owner.run('device_access_add', { device: 'aud-reuse', email_or_org_id: 'secret-friend@audit.test', role: 'viewer' });
    await owner.run('devices_reject', { device: 'aud-reuse' });
    tick();
    const mallory = await fleet.as('mallory@audit.test');
    await register('aud-reuse', mallory, 'user:mallory@audit.test');
    const entries = await logs('aud-reuse', {}, mallory);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter((e) => e.user === 'owner@audit.test')).toEqual([]);
    expect(JSON.stringify(entries)).not.toContain('secret-friend@audit.test');
  });

  it('never writes an API key, token or the admin key into audit entries or log lines', async () => {
    expect(apiKeys.length).toBeGreaterThan(3);
    for (const key of apiKeys) expect(key).toMatch(/^svc_/);
    await server.api.get('/users', { adminKey: 'wrong-admin-key-value' });
    const secrets = [...apiKeys, TEST_ADMIN_KEY, 'wrong-admin-key-value', owner.caller.token!];
    // Straight from storage: first the entries the writer still holds (it writes a turn after the request).
    await server.app.get(AuditWriter, { strict: false }).flush();
    const audit = JSON.stringify(await server.app.get(Storage).collection(AUDIT).find({}));
    const logged = output.join('');
    expect(logged).toMatch(/"msg":"request"/);
    for (const secret of secrets) {
      expect(audit).not.toContain(secret);
      expect(logged).not.toContain(secret);
    }
  });

  describe('retention', () => {
    const run = () => server.app.get(RetentionJob).run();

    it('purges audit entries older than AUDIT_RETENTION_DAYS and keeps newer ones', async () => {
      await register('ret-1', owner);
      tick(20 * DAY_MS);
      await owner.run('device_access_add', { device: 'ret-1', email_or_org_id: 'late@audit.test', role: 'viewer' });
      expect(await logs('ret-1')).toHaveLength(3);
      tick(11 * DAY_MS);
      const purged = await run();
      expect(purged.audit).toBeGreaterThanOrEqual(2);
      expect((await logs('ret-1')).map((e) => e.action)).toEqual(['device.access_added']);
      expect(await logs('aud-1')).toEqual([]);
      expect((await run()).audit).toBe(0);
    });

    it('purges reports older than REPORT_RETENTION_DAYS and keeps newer ones', async () => {
      expect(server.config.reportRetentionDays).toBe(3);
      const reports = server.app.get(ReportStore);
      await reports.recordReport('ret-1', 'deployment', { run: 'old' });
      tick(2 * DAY_MS);
      await reports.recordReport('ret-1', 'deployment', { run: 'new' });
      tick(2 * DAY_MS);
      expect((await run()).reports).toBe(1);
      const left = await server.app.get(Storage).collection(REPORTS).find({});
      expect(left.map((r) => r.data)).toEqual([{ run: 'new' }]);
      expect(await server.app.get(Storage).collection(REPORTS).count({})).toBe(1);
    });

    it('purges expired registration requests', async () => {
      const expired = await requestRegistration(server, 'ret-pending', 'user:owner@audit.test');
      tick(61 * 60 * 1000);
      const fresh = await requestRegistration(server, 'ret-fresh', 'user:owner@audit.test');
      expect((await run()).registrations).toBeGreaterThanOrEqual(1);
      const registrations = server.app.get(Storage).collection(REGISTRATIONS);
      expect(await registrations.findOne({ id: expired })).toBeNull();
      expect(await registrations.findOne({ id: fresh })).not.toBeNull();
      // Even its own key's proof gets the answer an unknown request gets.
      expectError(await pollRegistration(server, expired), 401, 'UNAUTHENTICATED');
      expect(output.join('')).toMatch(/retention purge/);
    });
  });
});
