/**
 * Who may take a device id, and what approving or removing costs, seen the way people use svc:
 * a stranger cannot squat an id an owner's device asked for first (REST, two users, and the
 * CLI), approving a request that replaces a running device's key is marked and confirmed (table,
 * terminal prompt, --yes, MCP refusal), and removing an approved device is confirmed too, with its
 * audit log still readable by its former owner afterwards. REST calls are operations by name
 * through the SDK (approval as `svc devices approve --yes` sends it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceListItem, generateDeviceIdentity, keyFingerprint } from '@svc/common';
import { expectRefused } from './fixtures/expect-error';
import { callTool, callToolError, startMcp } from './fixtures/mcp-session';
import { FleetUser, useFleet } from './fixtures/fleet';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { CliHome, svc, svcInTerminal, svcJson } from './fixtures/svc-cli';
import { pollRegistration, registerDevice, submitRegistration, TestServer } from './fixtures/test-server';
import { eventually } from './fixtures/eventually';

const ALICE = 'alice@claims.test';
const MALLORY = 'mallory@claims.test';

/** `svc <args>` on a terminal, answering its `[y/N]` question with `answer`. */
function inTerminal(home: CliHome, args: string[], answer: string): Promise<{ code: number; output: string }> {
  return svcInTerminal(home, args, { cols: 200, answer: { when: /\[y\/N\]/, send: `${answer}\r` } });
}

describe('device id claims, key replacement and removal', () => {
  // Declared before the fleet, so that it runs first: the runtimes stop before the server.
  afterAll(async () => {
    for (const runtime of runtimes) runtime.kill('SIGTERM');
    await Promise.all(runtimes.map((runtime) => runtime.exited));
    rmSync(dir, { recursive: true, force: true });
  });
  const fleet = useFleet({ relay: true, users: { alice: ALICE, mallory: MALLORY } });
  let server: TestServer;
  let dir: string;
  let alice: CliHome;
  let mallory: CliHome;
  const runtimes: RuntimeProcess[] = [];
  const as = (email: string) => fleet.as(email);
  const pending = async (user: FleetUser, deviceId: string) => ((await user.run('devices_list', {})) as DeviceListItem[]).filter((d) => d.status === 'pending' && d.device_id === deviceId);
  const approve = (requestId: string, user: FleetUser) => user.client.call('devices_approve', { device: requestId });
  const status = async (deviceId: string, email = ALICE) => (await as(email)).route('device_status.one', { device: deviceId });
  const statusOf = (deviceId: string) => status(deviceId);
  const auditLogs = async (deviceId: string, email: string) => (await as(email)).route('device_audit_logs.one', { device: deviceId });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-claims-'));
    server = fleet.server;
    alice = fleet.user('alice').home;
    mallory = fleet.user('mallory').home;
  });

  describe('device-id squatting', () => {
    it('REST: a stranger cannot approve an id an owner asked for first, and does not reject the owner\'s request', async () => {
      const genuine = await submitRegistration(server, 'claim-rest', `user:${ALICE}`);
      server.clock.advance(1000);
      const squat = await submitRegistration(server, 'claim-rest', `user:${MALLORY}`);

      await expectRefused(approve(squat.requestId, await as(MALLORY)), 409, 'CONFLICT', /requested earlier for another owner/);
      expect((await pending(await as(ALICE), 'claim-rest')).map((d) => d.request_id)).toEqual([genuine.requestId]);
      expect((await pollRegistration(server, genuine.requestId)).body).toEqual({ status: 'pending' });

      await approve(genuine.requestId, await as(ALICE));
      expect((await pollRegistration(server, genuine.requestId)).body).toMatchObject({ status: 'approved', device_id: 'claim-rest' });
      // Approving Alice's request decided only Alice's: Mallory's still waits, and finds the id taken.
      expect((await pollRegistration(server, squat.requestId)).body).toEqual({ status: 'pending' });
      await expectRefused(approve(squat.requestId, await as(MALLORY)), 409, 'CONFLICT', /already registered/);
      await status('claim-rest');
    });

    it('REST: approving one request rejects the same owner\'s other requests for that id, never another owner\'s', async () => {
      const first = await submitRegistration(server, 'claim-same', `user:${ALICE}`);
      const second = await submitRegistration(server, 'claim-same', `user:${ALICE}`);
      server.clock.advance(1000);
      const later = await submitRegistration(server, 'claim-same', `user:${MALLORY}`);
      await approve(second.requestId, await as(ALICE));
      expect((await pollRegistration(server, first.requestId)).body).toEqual({ status: 'rejected' });
      expect((await pollRegistration(server, later.requestId)).body).toEqual({ status: 'pending' });
    });

    it('CLI: the squatter is told why, and the owner still sees and approves the genuine request', async () => {
      const genuine = await submitRegistration(server, 'claim-cli', `user:${ALICE}`);
      server.clock.advance(1000);
      const squat = await submitRegistration(server, 'claim-cli', `user:${MALLORY}`);

      const refused = await svc(mallory, ['devices', 'approve', squat.requestId]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^Error: Device id claim-cli was requested earlier for another owner/m);

      const listed = await svcJson<DeviceListItem[]>(alice, ['devices', 'list', '--status', 'pending']);
      expect(listed.filter((d) => d.device_id === 'claim-cli').map((d) => d.request_id)).toEqual([genuine.requestId]);
      const approved = await svc(alice, ['devices', 'approve', genuine.requestId]);
      expect(approved.code).toBe(0);
      expect(approved.stdout).toContain('Approved claim-cli.');
    });
  });

  describe('a request that replaces a running device\'s key', () => {
    let requestId: string;
    let requestFingerprint: string;
    const original = generateDeviceIdentity();
    /** What marks the request: the key rekey-1 was registered with, and the request's other one. */
    const keyChanged = () => `KEY CHANGED: was ${keyFingerprint(original.publicKey)}, now ${requestFingerprint}`;

    beforeAll(async () => {
      const apiKey = await registerDevice(server, 'rekey-1', `user:${ALICE}`, (await as(ALICE)).caller, { identity: original });
      const runtime = startRuntimeProcess(['run'], { HOME: dir, SVC_CONFIG_DIR: join(dir, 'rekey-1'), SVC_SERVER_URL: server.url, SVC_CA_FILE: server.tunnel!.caFile, SVC_API_KEY: apiKey });
      runtimes.push(runtime);
      await runtime.waitForLog('tunnel up');
      await eventually('rekey-1 online', async () => (await statusOf('rekey-1')).status === 'online', { timeoutMs: 60_000 });
      // A second runtime asks for the same id, with another key, for the same owner.
      ({ requestId, fingerprint: requestFingerprint } = await submitRegistration(server, 'rekey-1', `user:${ALICE}`, { hostname: 'other-host' }));
    });

    it('is marked in the devices list table, with the registered key and the new one', async () => {
      const { code, stdout } = await svc(alice, ['devices', 'list']);
      expect(code).toBe(0);
      const row = stdout.split('\n').find((line) => line.startsWith(requestId));
      expect(row).toMatch(/pending .* replaces the key of rekey-1, online$/);
      expect(row).toContain(`${keyChanged()}; replaces the key of rekey-1`);
    });

    it('is not marked KEY CHANGED when the device asks again with its own key (an ordinary re-key)', async () => {
      const identity = generateDeviceIdentity();
      await registerDevice(server, 'rekey-same', `user:${ALICE}`, (await as(ALICE)).caller, { identity });
      const again = await submitRegistration(server, 'rekey-same', `user:${ALICE}`, { identity });
      const { stdout } = await svc(alice, ['devices', 'list']);
      const row = stdout.split('\n').find((line) => line.startsWith(again.requestId));
      expect(row).toMatch(/pending .* replaces the key of rekey-same, offline$/);
      expect(row).not.toContain('KEY CHANGED');
      await svc(alice, ['devices', 'reject', again.requestId]);
    });

    it('is refused without a terminal and without --yes, and nothing changes', async () => {
      const { code, stderr } = await svc(alice, ['devices', 'approve', requestId]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/^Error: Approving req_\w+ replaces the key of rekey-1, online: .*Pass --yes to confirm/m);
      expect(stderr).toContain(keyChanged());
      expect((await pollRegistration(server, requestId)).body).toEqual({ status: 'pending' });
      expect((await statusOf('rekey-1')).status).toBe('online');
    });

    it('is asked about on a terminal; "no" changes nothing', async () => {
      const { code, output } = await inTerminal(alice, ['devices', 'approve', requestId], 'n');
      expect(output).toMatch(/replaces the key of rekey-1, online/);
      expect(output).toContain(keyChanged());
      expect(output).toContain('Not approved: nothing changed.');
      expect(code).toBe(1);
      expect((await pollRegistration(server, requestId)).body).toEqual({ status: 'pending' });
    });

    it('is refused by the MCP tool, which names the command a person runs', async () => {
      const mcp = await startMcp(alice.env);
      try {
        const tools = (await mcp.client.listTools()).tools;
        expect(tools.find((tool) => tool.name === 'devices_approve')?.description).toMatch(/replace that device's key.*svc devices approve <request_id> --yes/);
        const error = await callToolError(mcp, 'devices_approve', { device: requestId });
        expect(error).toMatch(/replaces the key of rekey-1, online/);
        expect(error).toContain(`svc devices approve ${requestId} --yes`);
        expect((await pollRegistration(server, requestId)).body).toEqual({ status: 'pending' });
        // A request for a new id is approved by the tool as before.
        const fresh = await submitRegistration(server, 'rekey-mcp-new', `user:${ALICE}`);
        expect(await callTool(mcp, 'devices_approve', { device: fresh.requestId })).toMatchObject({ status: 'approved', device_id: 'rekey-mcp-new' });
      } finally {
        await mcp.close();
      }
    });

    it('is approved with --yes: the running device is cut off', async () => {
      const { code, stdout } = await svc(alice, ['devices', 'approve', requestId, '--yes']);
      expect(code).toBe(0);
      expect(stdout).toContain('Approved rekey-1.');
      await eventually('the old runtime cut off', async () => (await statusOf('rekey-1')).status === 'offline', { timeoutMs: 60_000 });
    });
  });

  describe('removing an approved device', () => {
    beforeAll(async () => {
      await registerDevice(server, 'gone-1', `user:${ALICE}`, (await as(ALICE)).caller);
    });

    it('is refused without a terminal and without --yes; a pending request is rejected without asking', async () => {
      const { code, stderr } = await svc(alice, ['devices', 'reject', 'gone-1']);
      expect(code).toBe(2);
      expect(stderr).toMatch(/^Error: Removing device gone-1 \(offline\) revokes its key .*Pass --yes to confirm/m);
      await status('gone-1');

      const request = await submitRegistration(server, 'gone-pending', `user:${ALICE}`);
      const rejected = await svc(alice, ['devices', 'reject', request.requestId]);
      expect(rejected.code).toBe(0);
      expect((await pollRegistration(server, request.requestId)).body).toEqual({ status: 'rejected' });
    });

    it('is asked about on a terminal; "no" keeps the device', async () => {
      const { code, output } = await inTerminal(alice, ['devices', 'reject', 'gone-1'], 'n');
      expect(output).toMatch(/Removing device gone-1 \(offline\)/);
      expect(output).toContain('Not removed: nothing changed.');
      expect(code).toBe(1);
      await status('gone-1');
    });

    it('"yes" on the terminal removes it; its former owner still reads its audit log, nobody else does', async () => {
      const { code } = await inTerminal(alice, ['devices', 'reject', 'gone-1'], 'y');
      expect(code).toBe(0);
      await expectRefused(status('gone-1'), 404);

      const logs = await svcJson<{ logs: { action: string }[] }>(alice, ['devices', 'logs', 'gone-1']);
      expect(logs.logs.map((entry) => entry.action)).toEqual(expect.arrayContaining(['device.registration_requested', 'device.approved', 'device.removed']));
      await expectRefused(auditLogs('gone-1', MALLORY), 404, 'DEVICE_NOT_FOUND');

      // The id registered again by someone else: their history starts fresh, Alice's stays hers.
      server.clock.advance(1000);
      await registerDevice(server, 'gone-1', `user:${MALLORY}`, (await as(MALLORY)).caller);
      await (await as(MALLORY)).run('devices_reject', { device: 'gone-1' });
      const again = (await auditLogs('gone-1', ALICE)) as { logs: { action: string; user: string }[] };
      expect(again.logs.length).toBeGreaterThan(0);
      expect(again.logs.every((entry) => !entry.user.includes('mallory'))).toBe(true);
      const theirs = (await auditLogs('gone-1', MALLORY)) as { logs: { user: string }[] };
      expect(theirs.logs.every((entry) => !entry.user.includes('alice'))).toBe(true);
    });
  });
});
