/**
 * Abuse limits over real HTTP: a batch naming one device many times (by id or by name) evaluates
 * it once, a device_audit_logs batch answer holds at most LIMITS.auditLogsBatchMaxEntries entries
 * (an equal share per device, `truncated` where cut), and a device takes at most
 * LIMITS.maxSharesPerDevice shares. Operations are called by name through the SDK.
 */
import { randomUUID } from 'node:crypto';
import { LIMITS } from '@svc/common';
import { expectRefused } from './fixtures/expect-error';
import { attemptOf } from './fixtures/operation-client';
import { requestRegistration, TestServer } from './fixtures/test-server';
import { AuditRepository } from '../apps/server/src/audit/audit.repository';
import { FleetUser, useFleet } from './fixtures/fleet';

describe('batch and sharing limits', () => {
  const fleet = useFleet({});
  let server: TestServer;
  let owner: FleetUser;
  type Batch = { results: { device: string; logs: { details: string }[]; truncated?: true }[] };
  const auditBatch = async (devices: string[]) => (await owner.run('device_audit_logs', { devices, max: 1000 })) as Batch;
  /** Writes `count` audit entries for a device, newest last, after its registration. */
  const history = async (deviceId: string, count: number) => {
    const audit = server.app.get(AuditRepository);
    const start = server.clock.now().getTime() + 1000;
    for (let i = 0; i < count; i++) {
      const timestamp = new Date(start + i);
      await audit.insert({ id: randomUUID(), timestamp, user: 'seed', action: 'device.exec', deviceId, orgId: null, details: `entry ${i}`, expiresAt: new Date(start + 1e10) });
    }
  };

  beforeAll(async () => {
    server = fleet.server;
    owner = await fleet.as('owner@limits.test');
    for (const [id, name] of [['lim-1', 'box-one'], ['lim-2', 'box-two'], ['lim-3', 'box-three'], ['lim-4', 'box-four'], ['lim-5', 'box-five'], ['lim-6', 'box-six'], ['lim-small', 'small']]) {
      await owner.run('devices_approve', { device: await requestRegistration(server, id, 'user:owner@limits.test', name) });
    }
    for (const id of ['lim-1', 'lim-2', 'lim-3', 'lim-4', 'lim-5', 'lim-6']) await history(id, 1001);
  });

  describe('device_audit_logs batches', () => {
    it('evaluate a device named many times, by id and by name, once', async () => {
      const { results } = await auditBatch([...Array(98).fill('lim-1'), 'box-one', 'lim-small']);
      expect(results.map((item) => item.device)).toEqual(['lim-1', 'lim-small']);
      expect(results[0].logs).toHaveLength(1000);
      expect(results[0]).not.toHaveProperty('truncated');
    });

    it(`hold at most ${LIMITS.auditLogsBatchMaxEntries} entries: an equal share per device, truncated where cut`, async () => {
      const { results } = await auditBatch(['lim-1', 'lim-2', 'lim-3', 'lim-4', 'lim-5', 'lim-6', 'small']);
      const share = Math.floor(LIMITS.auditLogsBatchMaxEntries / 7);
      expect(results.map((item) => [item.device, item.logs.length, item.truncated])).toEqual([
        ...['lim-1', 'lim-2', 'lim-3', 'lim-4', 'lim-5', 'lim-6'].map((device) => [device, share, true]),
        ['small', results[6].logs.length, undefined],
      ]);
      expect(results[6].logs.length).toBeLessThan(share);
      // Newest first, as without the cut.
      expect(results[0].logs[0].details).toBe('entry 1000');
      expect(results.reduce((sum, item) => sum + item.logs.length, 0)).toBeLessThanOrEqual(LIMITS.auditLogsBatchMaxEntries);
    });

    it('leave a batch within the budget and the single form untouched', async () => {
      const batch = await auditBatch(['lim-1', 'lim-2']);
      expect(batch.results.map((item) => [item.logs.length, item.truncated])).toEqual([
        [1000, undefined],
        [1000, undefined],
      ]);
      const single = await owner.route('device_audit_logs.one', { device: 'lim-1', max: 1000 });
      expect(single).toEqual({ logs: expect.any(Array) });
      expect(single.logs).toHaveLength(1000);
    });

    it('report each failed item with its error code', async () => {
      const res = (await owner.run('device_status', { devices: ['lim-1', 'nope', 'lim-1'] })) as { results: unknown[] };
      expect(res.results).toEqual([
        { device: 'lim-1', status: 'offline', health: 'unknown', uptime: null, last_seen: null },
        { device: 'nope', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
      ]);
    });
  });

  describe('shares per device', () => {
    const add = (who: string, role = 'viewer') => owner.run('device_access_add', { device: 'lim-small', email_or_org_id: who, role });

    it(`take at most ${LIMITS.maxSharesPerDevice}; a role change at the cap is fine, one more is a 409`, async () => {
      for (let i = 0; i < LIMITS.maxSharesPerDevice; i += 10) {
        const batch = await Promise.all(Array.from({ length: 10 }, (_, j) => attemptOf(add(`u${i + j}@limits.test`))));
        expect(batch.map((answer) => answer.ok)).toEqual(Array(10).fill(true));
      }
      await expectRefused(add('one-more@limits.test'), 409, 'CONFLICT', /at most 100/);
      await add('u7@limits.test', 'editor');
      await owner.run('device_access_remove', { device: 'lim-small', email_or_org_id: 'u0@limits.test' });
      await add('one-more@limits.test');
      const listed = await owner.run('device_access_list', { device: 'lim-small' });
      expect(listed).toHaveLength(LIMITS.maxSharesPerDevice);
      expect(listed).toContainEqual({ email: 'u7@limits.test', role: 'editor' });
    });
  });
});
