/**
 * Abuse limits over real HTTP: a batch naming one device many times (by id or by name) evaluates
 * it once, a device_audit_logs batch answer holds at most LIMITS.auditLogsBatchMaxEntries entries
 * (an equal share per device, `truncated` where cut), and a device takes at most
 * LIMITS.maxSharesPerDevice shares.
 */
import { randomUUID } from 'node:crypto';
import { LIMITS } from '@svc/common';
import { Caller } from './fixtures/api-client';
import { expectError } from './fixtures/expect-error';
import { requestRegistration, TestServer } from './fixtures/test-server';
import { AuditRepository } from '../apps/server/src/audit/audit.repository';
import { useFleet } from './fixtures/fleet';

describe('batch and sharing limits', () => {
  const fleet = useFleet({});
  let server: TestServer;
  let owner: Caller;
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
    owner = await server.login('owner@limits.test');
    for (const [id, name] of [['lim-1', 'box-one'], ['lim-2', 'box-two'], ['lim-3', 'box-three'], ['lim-4', 'box-four'], ['lim-5', 'box-five'], ['lim-6', 'box-six'], ['lim-small', 'small']]) {
      await server.api.post('/devices/approve', { request_id: await requestRegistration(server, id, 'user:owner@limits.test', name) }, owner);
    }
    for (const id of ['lim-1', 'lim-2', 'lim-3', 'lim-4', 'lim-5', 'lim-6']) await history(id, 1001);
  });

  describe('device_audit_logs batches', () => {
    it('evaluate a device named many times, by id and by name, once', async () => {
      const res = await server.api.post('/devices/audit-logs', { devices: [...Array(98).fill('lim-1'), 'box-one', 'lim-small'], max: 1000 }, owner);
      expect(res.status).toBe(200);
      expect(res.body.results.map((item: { device: string }) => item.device)).toEqual(['lim-1', 'lim-small']);
      expect(res.body.results[0].logs).toHaveLength(1000);
      expect(res.body.results[0]).not.toHaveProperty('truncated');
    });

    it(`hold at most ${LIMITS.auditLogsBatchMaxEntries} entries: an equal share per device, truncated where cut`, async () => {
      const res = await server.api.post('/devices/audit-logs', { devices: ['lim-1', 'lim-2', 'lim-3', 'lim-4', 'lim-5', 'lim-6', 'small'], max: 1000 }, owner);
      expect(res.status).toBe(200);
      const share = Math.floor(LIMITS.auditLogsBatchMaxEntries / 7);
      const results = res.body.results as { device: string; logs: { details: string }[]; truncated?: true }[];
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
      const batch = await server.api.post('/devices/audit-logs', { devices: ['lim-1', 'lim-2'], max: 1000 }, owner);
      expect(batch.body.results.map((item: { logs: unknown[]; truncated?: true }) => [item.logs.length, item.truncated])).toEqual([
        [1000, undefined],
        [1000, undefined],
      ]);
      const single = await server.api.get('/devices/lim-1/audit-logs?max=1000', owner);
      expect(single.body).toEqual({ logs: expect.any(Array) });
      expect(single.body.logs).toHaveLength(1000);
    });

    it('report each failed item with its error code', async () => {
      const res = await server.api.post('/devices/status', { devices: ['lim-1', 'nope', 'lim-1'] }, owner);
      expect(res.body.results).toEqual([
        { device: 'lim-1', status: 'offline', health: 'unknown', uptime: null, last_seen: null },
        { device: 'nope', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
      ]);
    });
  });

  describe('shares per device', () => {
    const add = (who: string, role = 'viewer') => server.api.post('/devices/lim-small/access', { email_or_org_id: who, role }, owner);

    it(`take at most ${LIMITS.maxSharesPerDevice}; a role change at the cap is fine, one more is a 409`, async () => {
      for (let i = 0; i < LIMITS.maxSharesPerDevice; i += 10) {
        const batch = await Promise.all(Array.from({ length: 10 }, (_, j) => add(`u${i + j}@limits.test`)));
        expect(batch.map((res) => res.status)).toEqual(Array(10).fill(200));
      }
      expectError(await add('one-more@limits.test'), 409, 'CONFLICT', /at most 100/);
      expect((await add('u7@limits.test', 'editor')).status).toBe(200);
      expect((await server.api.delete('/devices/lim-small/access/u0@limits.test', owner)).status).toBe(200);
      expect((await add('one-more@limits.test')).status).toBe(200);
      const listed = await server.api.get('/devices/lim-small/access', owner);
      expect(listed.body).toHaveLength(LIMITS.maxSharesPerDevice);
      expect(listed.body).toContainEqual({ email: 'u7@limits.test', role: 'editor' });
    });
  });
});
