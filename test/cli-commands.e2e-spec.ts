/**
 * The device, access and organization commands of the real `svc` binary, and `svc runtime run`
 * as the device: register → pending with its fingerprint → approve → online, then sharing and
 * organizations, every family with `--json` asserted and the documented exit codes.
 */
import { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useFleet } from './fixtures/fleet';
import { CliHome, cliHome, spawnSvc, svc, svcJson } from './fixtures/svc-cli';
import { defaultCarrier } from './fixtures/runtime-process';
import { eventually } from './fixtures/eventually';

const ALICE = 'alice@cli-cmd.test';
const BOB = 'bob@cli-cmd.test';
const ROOT = 'root@cli-cmd.test';
const DEVICE = 'cli-dev-1';

describe('svc devices / access / orgs / runtime (real binary, real runtime)', () => {
  // The device's runtime is what the suite registers, with `svc runtime run` from its own home.
  const fleet = useFleet({ users: { alice: ALICE, bob: BOB, root: ROOT }, env: { ADMIN_EMAILS: ROOT }, relay: true });
  let alice: CliHome;
  let bob: CliHome;
  let root: CliHome;
  let deviceHome: CliHome;
  let runtime: ChildProcess;
  let runtimeOutput = '';

  beforeAll(() => {
    [alice, bob, root] = ['alice', 'bob', 'root'].map((name) => fleet.user(name).home);
    deviceHome = cliHome(fleet.server);
  });
  afterAll(async () => {
    if (runtime && runtime.exitCode === null) {
      runtime.kill('SIGTERM');
      await new Promise((resolve) => runtime.once('exit', resolve));
    }
    deviceHome?.remove();
  });

  function waitForOutput(pattern: RegExp): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(runtimeOutput);
        if (match) {
          runtime.stdout!.off('data', check);
          runtime.stderr!.off('data', check);
          resolve(match);
        }
      };
      runtime.stdout!.on('data', check);
      runtime.stderr!.on('data', check);
      runtime.once('exit', (code) => reject(new Error(`svc runtime run exited ${code}:\n${runtimeOutput}`)));
      check();
    });
  }

  it('registers with `svc runtime run`, shows the fingerprint in the pending list, and goes online once approved', async () => {
    runtime = spawnSvc(deviceHome, ['runtime', 'run', '--owner', `user:${ALICE}`, '--device-id', DEVICE, '--poll-interval', '1s', '--transport', defaultCarrier()]);
    runtime.stdout!.setEncoding('utf8').on('data', (chunk: string) => (runtimeOutput += chunk));
    runtime.stderr!.setEncoding('utf8').on('data', (chunk: string) => (runtimeOutput += chunk));
    const [, fingerprint] = await waitForOutput(/Key fingerprint: (\S+)/);

    const pending = await svcJson<{ request_id: string; fingerprint: string; status: string }[]>(alice, ['devices', 'list', '--status', 'pending']);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ status: 'pending', fingerprint });
    const human = await svc(alice, ['devices', 'list']);
    expect(human.stdout).toMatch(/^ID\s+NAME\s+STATUS\s+OWNER\s+FINGERPRINT$/m);
    expect(human.stdout).toContain(fingerprint);

    expect(await svcJson(alice, ['devices', 'approve', pending[0].request_id])).toMatchObject({ status: 'approved' });
    await waitForOutput(/tunnel up/);
    let status = await svc(alice, ['devices', 'status', DEVICE, '--json']);
    await eventually('the device status', async () => (status = await svc(alice, ['devices', 'status', DEVICE, '--json'])).code === 0).catch(() => undefined);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ status: 'online', health: 'healthy' });
    const creds = JSON.parse(readFileSync(deviceHome.credentialsPath, 'utf8'));
    expect(creds.device_credentials.api_key).toEqual(expect.any(String));
  });

  it('devices status: exit 1 when some device is not found or not online, with per-device errors', async () => {
    const result = await svc(alice, ['devices', 'status', '--devices', `${DEVICE},no-such-device`, '--json']);
    expect(result.code).toBe(1);
    const body = JSON.parse(result.stdout);
    expect(body.results).toEqual([
      expect.objectContaining({ device: DEVICE, status: 'online' }),
      expect.objectContaining({ device: 'no-such-device', error: expect.stringMatching(/not found/i) }),
    ]);
    const both = await svc(alice, ['devices', 'status', DEVICE, '--devices', DEVICE]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/either device or devices/);
    const neither = await svc(alice, ['devices', 'status']);
    expect(neither.code).toBe(2);
  });

  it("a stranger's view of the device is 'not found' (exit 2), until it is shared", async () => {
    const denied = await svc(bob, ['devices', 'status', DEVICE]);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toMatch(/^Error: Device not found/m);
    expect(await svcJson(alice, ['access', 'add', DEVICE, BOB, '--role', 'viewer'])).toEqual({ status: 'added' });
    expect(await svcJson(alice, ['access', 'list', DEVICE])).toEqual([{ email: BOB, role: 'viewer' }]);
    expect(await svcJson(bob, ['devices', 'status', DEVICE])).toMatchObject({ status: 'online' });
    const notAdmin = await svc(bob, ['access', 'add', DEVICE, 'eve@cli-cmd.test', '--role', 'admin']);
    expect(notAdmin.code).toBe(2);
    expect(await svcJson(alice, ['access', 'remove', DEVICE, BOB])).toEqual({ status: 'removed' });
    expect((await svc(bob, ['devices', 'status', DEVICE])).code).toBe(2);
    const badRole = await svc(alice, ['access', 'add', DEVICE, BOB, '--role', 'owner']);
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/Expected --role=owner to be one of: admin, editor, viewer/);
  });

  it('devices logs shows the audit trail (--json and a table)', async () => {
    const logs = await svcJson<{ logs: { action: string; user: string }[] }>(alice, ['devices', 'logs', DEVICE, '--max', '50']);
    const actions = logs.logs.map((entry) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(['device.approved', 'device.access_added', 'device.access_removed']));
    const table = await svc(alice, ['devices', 'logs', DEVICE]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^TIME\s+USER\s+ACTION\s+DETAILS/m);
  });

  it('organizations: create, members, devices, rename, delete', async () => {
    expect(await svcJson(root, ['orgs', 'create', 'acme-cli', '--owner', ALICE])).toEqual({ status: 'created' });
    expect((await svc(alice, ['orgs', 'create', 'nope-cli', '--owner', ALICE])).code).toBe(2);
    expect(await svcJson(alice, ['orgs', 'list'])).toEqual([{ id: 'acme-cli', owner: ALICE, members: 1 }]);
    expect(await svcJson(alice, ['orgs', 'members', 'add', 'acme-cli', BOB, '--role', 'viewer'])).toEqual({ status: 'added' });
    expect(await svcJson(alice, ['orgs', 'members', 'list', 'acme-cli'])).toEqual(expect.arrayContaining([{ email: BOB, role: 'viewer' }]));
    expect(await svcJson(alice, ['orgs', 'devices', 'add', 'acme-cli', DEVICE])).toEqual({ status: 'added' });
    expect(await svcJson(alice, ['orgs', 'devices', 'list', 'acme-cli'])).toEqual([expect.objectContaining({ id: DEVICE, status: 'online' })]);
    expect(await svcJson(bob, ['devices', 'status', DEVICE])).toMatchObject({ status: 'online' });
    expect(await svcJson(alice, ['orgs', 'devices', 'remove', 'acme-cli', DEVICE])).toEqual({ status: 'removed' });
    expect(await svcJson(alice, ['orgs', 'members', 'remove', 'acme-cli', BOB])).toEqual({ status: 'removed' });
    expect(await svcJson(alice, ['orgs', 'rename', 'acme-cli', 'acme-cli-2'])).toEqual({ status: 'updated' });
    expect(await svcJson(alice, ['orgs', 'delete', 'acme-cli-2'])).toEqual({ status: 'deleted' });
    expect(await svcJson(alice, ['orgs', 'list'])).toEqual([]);
  });

  it('reject removes the device; the runtime stops, and `svc runtime logout` clears its credentials', async () => {
    expect(await svcJson(alice, ['devices', 'reject', DEVICE, '--yes'])).toEqual({ status: 'rejected' });
    const code = await new Promise<number | null>((resolve) => (runtime.exitCode !== null ? resolve(runtime.exitCode) : runtime.once('exit', resolve)));
    expect(code).toBe(3);
    expect((await svc(alice, ['devices', 'status', DEVICE])).code).toBe(2);
    const logout = await svc(deviceHome, ['runtime', 'logout']);
    expect(logout.code).toBe(0);
    const creds = existsSync(deviceHome.credentialsPath) ? JSON.parse(readFileSync(deviceHome.credentialsPath, 'utf8')) : {};
    expect(creds.device_credentials).toBeUndefined();
  });

  it('builds shell completion for every command (oclif autocomplete)', async () => {
    const result = await svc(alice, ['autocomplete', 'bash']);
    expect(result.code).toBe(0);
    const script = readFileSync(join(alice.dir, '.cache', 'svc', 'autocomplete', 'functions', 'bash', 'svc.bash'), 'utf8');
    expect(script).toMatch(/^devices:list --json --debug --status --owner --name$/m);
    expect(script).toMatch(/^orgs:members:add /m);
  });

  it('usage errors exit 2 with oclif\'s message; --help has examples', async () => {
    const unknown = await svc(alice, ['devices', 'list', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Nonexistent flag: --bogus/);
    const help = await svc(alice, ['devices', 'status', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/EXAMPLES/);
    expect(help.stdout).toMatch(/--json/);
  });
});
