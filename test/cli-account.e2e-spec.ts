/**
 * Who am I and what may I do, as the CLI tells it: `svc login` says who you are once done, `svc
 * whoami` shows user, server, admin flag, organizations and token expiry (or exit 3 when not signed
 * in), `svc orgs create` says a server administrator is needed, and a viewer's `svc ls` is refused
 * as docs/security.md says (directory listings are device:read-files).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useFleet } from './fixtures/fleet';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { CliHome, cliHome, svc, svcJson, svcLogin } from './fixtures/svc-cli';
import { registerDevice, TestServer } from './fixtures/test-server';

const ALICE = 'alice@account.test';
const ROOT = 'root@account.test';
const VIEWER = 'vic@account.test';

interface Account {
  email: string;
  admin: boolean;
  organizations: { org_id: string; role: string }[];
  server: string;
  token_expires_at: string | null;
}

describe('svc whoami, login, orgs create and a viewer listing', () => {
  // Declared before the fleet, so that it runs first: the runtime stops before the server.
  afterAll(async () => {
    runtime?.kill('SIGTERM');
    await runtime?.exited;
    for (const h of homes) h.remove();
    rmSync(dir, { recursive: true, force: true });
  });
  const fleet = useFleet({ env: { ADMIN_EMAILS: ROOT }, relay: true });
  let server: TestServer;
  let dir: string;
  let runtime: RuntimeProcess;
  const homes: CliHome[] = [];
  const home = () => {
    const h = cliHome(server);
    homes.push(h);
    return h;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-account-'));
    server = fleet.server;
  });

  it('whoami without a login says so and exits 3', async () => {
    const { code, stderr } = await svc(home(), ['whoami']);
    expect(code).toBe(3);
    expect(stderr).toMatch(/^Error: Not logged in: run "svc login" first/m);
  });

  it('login says who you are; whoami shows user, server, admin flag, organizations and token expiry', async () => {
    const alice = home();
    const login = await svcLogin(alice, ALICE);
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(`Logged in as ${ALICE} on ${server.url}.`);

    const shown = await svc(alice, ['whoami']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^User: +${ALICE.replace('.', '\\.')}$`, 'm'));
    expect(shown.stdout).toMatch(/^Server admin: +no$/m);
    expect(shown.stdout).toMatch(/^Token expires: +\d{4}-\d\d-\d\dT/m);

    const account = await svcJson<Account>(alice, ['whoami']);
    expect(account).toEqual({ email: ALICE, admin: false, organizations: [], server: server.url, token_expires_at: expect.any(String) });
    expect(Date.parse(account.token_expires_at!)).toBeGreaterThan(Date.now());
  });

  it('orgs create without admin rights names the rule; a server admin creates it and sees itself as admin', async () => {
    const alice = home();
    await svcLogin(alice, ALICE);
    const refused = await svc(alice, ['orgs', 'create', 'acct-org', '--owner', ALICE]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^Error: Creating an organization needs a server administrator, and you are not one .*ADMIN_EMAILS.*X-Admin-Key/m);

    const root = home();
    const login = await svcLogin(root, ROOT);
    expect(login.stderr).toContain(`Logged in as ${ROOT} on ${server.url} (server admin).`);
    expect((await svcJson<Account>(root, ['whoami'])).admin).toBe(true);
    expect((await svc(root, ['orgs', 'create', 'acct-org', '--owner', ALICE])).code).toBe(0);
    expect((await svcJson<Account>(alice, ['whoami'])).organizations).toEqual([{ org_id: 'acct-org', role: 'admin' }]);
  });

  it('a viewer may not list a device\'s directories (device:read-files); the owner may', async () => {
    const owner = await server.login(ALICE);
    const apiKey = await registerDevice(server, 'acct-dev', `user:${ALICE}`, owner);
    runtime = startRuntimeProcess(['run'], { HOME: dir, SVC_CONFIG_DIR: join(dir, 'acct-dev'), SVC_SERVER_URL: server.url, SVC_CA_FILE: server.tunnel!.caFile, SVC_API_KEY: apiKey });
    await runtime.waitForLog('tunnel up');
    await (await fleet.as(ALICE)).run('device_access_add', { device: 'acct-dev', email_or_org_id: VIEWER, role: 'viewer' });

    const viewer = home();
    await svcLogin(viewer, VIEWER);
    const refused = await svc(viewer, ['ls', `acct-dev:${dir}`]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^Error: Access denied: your role \(viewer\) does not allow device:read-files/m);

    const alice = home();
    await svcLogin(alice, ALICE);
    const listed = await svc(alice, ['ls', `acct-dev:${dir}`]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('acct-dev');
  });
});
