/**
 * Device names and "last seen", the way people meet them: `svc runtime run --name` names a device
 * at registration, an owner renames it (REST, `svc devices rename`, the `device_rename` MCP
 * extension), the rename is audited and a re-key keeps it; `svc devices status` says "now" for an
 * online device and, once it is gone, when it was last heard from rather than when it connected.
 * REST calls are operations by name through the SDK.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceListItem, DeviceStatusResult } from '@svc/common';
import { expectError, expectRefused } from './fixtures/expect-error';
import { callTool, startMcp } from './fixtures/mcp-session';
import { FleetUser, OperationClient, useFleet } from './fixtures/fleet';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { CliHome, svc, svcJson } from './fixtures/svc-cli';
import { pollRegistration, registerDevice, submitRegistration, TestServer } from './fixtures/test-server';
import { eventually } from './fixtures/eventually';

const ALICE = 'alice@names.test';
const VIEWER = 'vera@names.test';
const STRANGER = 'stan@names.test';

describe('device names and last seen', () => {
  // Declared before the fleet, so that it runs first: the runtimes stop before the server.
  afterAll(async () => {
    for (const rt of runtimes) rt.kill('SIGTERM');
    await Promise.all(runtimes.map((rt) => rt.exited));
    rmSync(dir, { recursive: true, force: true });
  });
  const fleet = useFleet({ relay: true, users: { alice: ALICE } });
  let server: TestServer;
  let dir: string;
  let alice: CliHome;
  const runtimes: RuntimeProcess[] = [];
  const as = (email: string) => fleet.as(email);
  const listed = async (user: FleetUser) => (await user.run('devices_list', {})) as DeviceListItem[];
  const statusOf = async (device: string) => (await (await as(ALICE)).route('device_status.one', { device })) as DeviceStatusResult;
  const rename = (device: string, name: unknown, caller: OperationClient) => caller.run('device_rename', { device, name });
  const runtime = (name: string, ...flags: string[]) => {
    const rt = startRuntimeProcess(['run', '--poll-interval', '100ms', ...flags], { HOME: dir, SVC_CONFIG_DIR: join(dir, name), SVC_SERVER_URL: server.url, SVC_CA_FILE: server.tunnel!.caFile });
    runtimes.push(rt);
    return rt;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-names-'));
    server = fleet.server;
    alice = fleet.user('alice').home;
  });

  describe('svc runtime run --name', () => {
    it('registers the device under that name, shown on the pending request and the device', async () => {
      const rt = runtime('named', '--owner', `user:${ALICE}`, '--device-id', 'named-1', '--name', 'kitchen display');
      const [, requestId] = await rt.waitForLine('stdout', /request (req_[A-Za-z0-9_-]+)\)/);
      expect((await listed(await as(ALICE))).find((d) => d.request_id === requestId)).toMatchObject({ name: 'kitchen display', device_id: 'named-1' });
      expect((await svc(alice, ['devices', 'approve', requestId])).code).toBe(0);
      await rt.waitForLog('tunnel up');
      expect((await listed(await as(ALICE))).find((d) => d.id === 'named-1')).toMatchObject({ name: 'kitchen display' });
      expect((await svcJson<DeviceStatusResult>(alice, ['devices', 'status', 'kitchen display'])).status).toBe('online');
    });

    it('refuses a name with control characters or over 64 characters before asking the server', async () => {
      for (const bad of ['bell\u0007', 'x'.repeat(65), ' padded']) {
        const rt = runtime('bad-name', '--owner', `user:${ALICE}`, '--device-id', 'bad-name-1', '--name', bad);
        expect((await rt.exited).code).toBe(2);
        expect(rt.stderr.join('\n')).toMatch(/--name: a device name/);
      }
    });
  });

  describe('renaming', () => {
    beforeAll(async () => {
      await registerDevice(server, 'ren-1', `user:${ALICE}`, (await as(ALICE)).caller);
      await (await as(ALICE)).run('device_access_add', { device: 'ren-1', email_or_org_id: VIEWER, role: 'viewer' });
    });

    it('REST: the owner renames; the new name is listed, resolves as a reference and is audited', async () => {
      expect(await rename('ren-1', 'Front door', await as(ALICE))).toEqual({ status: 'renamed', device_id: 'ren-1', name: 'Front door' });
      expect((await listed(await as(ALICE))).find((d) => d.id === 'ren-1')?.name).toBe('Front door');
      await statusOf('Front door');
      const logs = (await (await as(ALICE)).route('device_audit_logs.one', { device: 'ren-1' })).logs as { action: string; user: string; details: string }[];
      expect(logs).toContainEqual(expect.objectContaining({ action: 'device.renamed', user: ALICE, details: expect.stringContaining('to "Front door"') }));
    });

    it('REST: refuses a viewer (403), a stranger (404), no token (401) and bad names (400)', async () => {
      await expectRefused(rename('ren-1', 'mine', await as(VIEWER)), 403, 'FORBIDDEN', /device:manage/);
      await expectRefused(rename('ren-1', 'mine', await as(STRANGER)), 404, 'DEVICE_NOT_FOUND');
      await expectRefused(rename('ren-1', 'mine', fleet.client({})), 401);
      for (const name of ['', '   ', 'tab\there', 'rtl\u202Eevil', 'x'.repeat(65), ' lead', 42, 'Front\u200bdoor', 'Front door\ufeff', '\u3164', 'tag\u{e0041}', 'a\u115f\u1160b']) {
        await expectRefused(rename('ren-1', name, await as(ALICE)), 400, 'INVALID_INPUT');
      }
      // Raw: the SDK never sends a request without a required parameter.
      expectError(await server.api.patch('/devices/ren-1', {}, (await as(ALICE)).caller), 400, 'INVALID_INPUT');
      expect((await listed(await as(ALICE))).find((d) => d.id === 'ren-1')?.name).toBe('Front door');
    });

    it('CLI: svc devices rename, and a clear error for a bad name', async () => {
      const done = await svc(alice, ['devices', 'rename', 'ren-1', 'porch']);
      expect(done.code).toBe(0);
      expect(done.stdout).toContain('Renamed ren-1 to porch.');
      expect((await svcJson<DeviceListItem[]>(alice, ['devices', 'list'])).find((d) => d.id === 'ren-1')?.name).toBe('porch');
      const bad = await svc(alice, ['devices', 'rename', 'porch', 'x'.repeat(65)]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^Error: .*at most 64 characters/m);
    });

    it('MCP: the device_rename extension renames', async () => {
      const mcp = await startMcp(alice.env);
      try {
        expect(await callTool(mcp, 'device_rename', { device: 'porch', name: 'garden gate' })).toEqual({ status: 'renamed', device_id: 'ren-1', name: 'garden gate' });
      } finally {
        await mcp.close();
      }
    });

    it('a re-key keeps the name', async () => {
      const request = await submitRegistration(server, 'ren-1', `user:${ALICE}`);
      await (await as(ALICE)).client.call('devices_approve', { device: request.requestId });
      expect((await pollRegistration(server, request.requestId)).body.status).toBe('approved');
      expect((await listed(await as(ALICE))).find((d) => d.id === 'ren-1')?.name).toBe('garden gate');
    });
  });

  describe('last seen', () => {
    it('is "now" while online, and the last heartbeat, not the connect time, once gone', async () => {
      const apiKey = await registerDevice(server, 'seen-1', `user:${ALICE}`, (await as(ALICE)).caller);
      const rt = startRuntimeProcess(['run'], { HOME: dir, SVC_CONFIG_DIR: join(dir, 'seen-1'), SVC_SERVER_URL: server.url, SVC_CA_FILE: server.tunnel!.caFile, SVC_API_KEY: apiKey });
      runtimes.push(rt);
      await rt.waitForLog('tunnel up');
      const connectedAt = await eventually<string>('the connect time recorded', async () => (await svcJson<DeviceStatusResult>(alice, ['devices', 'status', 'seen-1'])).last_seen ?? undefined, { timeoutMs: 90_000 });

      const table = await svc(alice, ['devices', 'status', 'seen-1']);
      expect(table.stdout.split('\n')[1]).toMatch(/^seen-1\s+online\s+healthy\s+\S+.*\s+now$/);

      // Ten minutes of (server) time pass while the tunnel stays up: last_seen follows.
      server.clock.advance(10 * 60_000);
      const later = await eventually<string>(
        'last_seen to move past the connect time while online',
        async () => {
          const seen = (await statusOf('seen-1')).last_seen;
          return seen && Date.parse(seen) > Date.parse(connectedAt) ? seen : undefined;
        },
        { timeoutMs: 90_000 },
      );
      expect(Date.parse(later) - Date.parse(connectedAt)).toBeGreaterThanOrEqual(10 * 60_000);

      rt.kill('SIGTERM');
      await rt.exited;
      const gone = await eventually(
        'seen-1 offline',
        async () => {
          const status = await statusOf('seen-1');
          return status.status === 'offline' ? status : undefined;
        },
        { timeoutMs: 90_000 },
      );
      expect(Date.parse(gone.last_seen!)).toBeGreaterThanOrEqual(Date.parse(later));
      const offline = await svc(alice, ['devices', 'status', 'seen-1']);
      expect(offline.stdout).toContain(gone.last_seen!);
      expect(offline.stdout).not.toMatch(/\snow$/m);
    }, 180_000);
  });
});
