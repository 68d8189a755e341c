/**
 * The README's first command, as a real process: `node apps/server/dist/main.js` (what `npm start`
 * runs after building) on the embedded defaults answers /health, and its development identity
 * provider completes a device-grant login whose token the server accepts. Also: start-up refusals.
 * Not on useFleet, raw paths on purpose: the server as a real process from the build, asked what a new operator asks it.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deviceGrantLogin } from './fixtures/oidc';
import { cliHome, svc, svcLogin } from './fixtures/svc-cli';
import { freePort, freeTunnelPort } from './fixtures/free-port';
import { eventually } from './fixtures/eventually';

const ROOT = resolve(__dirname, '..');
const MAIN = join(ROOT, 'apps/server/dist/main.js');

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startServer(env: Record<string, string>): Started {
  let out = '';
  let err = '';
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function waitForHealth(url: string, started: Started): Promise<Response> {
  let exitedCode: number | null | undefined;
  void started.exited.then((c) => (exitedCode = c));
  return eventually(`${url} to answer`, () => fetch(url), {
    // Within the 60 s of the hook that calls it, on a loaded machine.
    timeoutMs: 50_000,
    giveUp: () => (exitedCode === undefined ? undefined : `server exited (${exitedCode}): ${started.stderr()}`),
    describe: () => started.stderr(),
  });
}

describe('npm start on the embedded defaults', () => {
  let dataDir: string;
  let started: Started;
  let restPort: number;
  let idpPort: number;
  let tunnelPort: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-start-'));
    restPort = await freePort();
    idpPort = await freePort();
    tunnelPort = await freeTunnelPort();
    started = startServer({
      DATA_DIR: dataDir,
      REST_PORT: String(restPort),
      DEV_IDP_PORT: String(idpPort),
      UNIFIED_PORT: String(tunnelPort),
      LISTEN_HOST: '127.0.0.1',
      CERTIFICATE_PATH: join(dataDir, 'certs'),
      NODE_OPTIONS: `--require ${join(__dirname, 'fixtures/loaded-modules-probe.js')}`,
      SVC_LOADED_MODULES_FILE: join(dataDir, 'loaded-modules.txt'),
    });
    const health = await waitForHealth(`http://127.0.0.1:${restPort}/health`, started);
    expect(health.status).toBe(200);
  });

  afterAll(async () => {
    started?.child.kill('SIGTERM');
    await started?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /health with storage readiness', async () => {
    const res = await fetch(`http://127.0.0.1:${restPort}/health`);
    expect(await res.json()).toMatchObject({ status: 'ok', storage: 'up', storage_kind: 'embedded' });
  });

  it('loads neither Mongoose nor the MongoDB driver on embedded storage', async () => {
    const listing = join(dataDir, 'loaded-modules.txt');
    started.child.kill('SIGWINCH');
    await eventually('the loaded-modules listing', () => existsSync(listing));
    const loaded = readFileSync(listing, 'utf8').split('\n');
    expect(loaded).toContainEqual(expect.stringContaining('/node_modules/better-sqlite3'));
    expect(loaded.filter((path) => /\/node_modules\/(mongodb|mongoose|bson|@nestjs\/mongoose)\//.test(path))).toEqual([]);
  });

  it('completes a device-grant login at its development issuer, and accepts the token', async () => {
    const issuer = `http://localhost:${idpPort}/`;
    const tokens = await deviceGrantLogin({ issuer }, 'first@example.test');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const me = await fetch(`http://127.0.0.1:${restPort}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ kind: 'user', email: 'first@example.test', scopes: ['user:first@example.test'] });

    // Structured JSON logs with request ids, and never the token.
    await eventually('the request logged', () => started.stdout().includes(me.headers.get('x-request-id')!));
    const lines = started.stdout().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'request', path: '/me', status: 200, requestId: me.headers.get('x-request-id') }));
    expect(started.stdout()).not.toContain(tokens.access_token);
    expect(started.stdout()).not.toContain(tokens.access_token.split('.')[2]);
  });

  it('writes JSON lines when stdout is not a terminal, with the start banner and no route lines', () => {
    const lines = started.stdout().trim().split('\n').map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toContainEqual(expect.stringMatching(/^tunnel certificate SHA-256 fingerprint: [0-9a-f]{64} \(runtimes: --pin sha256:[0-9a-f]{64} or --ca /));
    expect(started.stdout()).not.toMatch(/Mapped \{/);
  });

  it('serves its OpenAPI document', async () => {
    const res = await fetch(`http://127.0.0.1:${restPort}/openapi.json`);
    expect(res.status).toBe(200);
    type Body = { content: Record<string, { schema: { required?: string[] } }> };
    const doc = (await res.json()) as { paths: Record<string, Record<string, { requestBody?: Body }>>; components: { schemas: Record<string, { required?: string[] }> } };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/health', '/auth/device', '/auth/device/status', '/devices', '/orgs']));
    // Request bodies are described, so dashboards can generate clients from the document.
    expect([...(doc.paths['/auth/device'].post.requestBody?.content['application/json'].schema.required ?? [])].sort()).toEqual(['device_id', 'device_info', 'owner_scope', 'public_key']);
    // A catalog route's body is its operation's parameters (the catalog's JSON Schema, inline).
    expect(doc.paths['/devices/{device}/access'].post.requestBody?.content['application/json'].schema.required).toEqual(['email_or_org_id', 'role']);
  });
});

/** IPv4 addresses with a socket bound to `port` (TCP listening, or UDP), from the kernel's own tables. */
function boundAddresses(protocol: 'tcp' | 'udp', port: number): string[] {
  const listening = protocol === 'tcp' ? '0A' : '07';
  return readFileSync(`/proc/net/${protocol}`, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local, , state]) => state === listening && parseInt(local.split(':')[1], 16) === port)
    .map(([, local]) => Buffer.from(local.split(':')[0], 'hex').reverse().join('.'));
}

describe('listen address and the default admin key', () => {
  const start = async (env: Record<string, string>) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-listen-'));
    const [restPort, idpPort, tunnelPort] = [await freePort(), await freePort(), await freeTunnelPort()];
    const started = startServer({ DATA_DIR: dataDir, REST_PORT: String(restPort), DEV_IDP_PORT: String(idpPort), UNIFIED_PORT: String(tunnelPort), CERTIFICATE_PATH: join(dataDir, 'certs'), ...env });
    try {
      await waitForHealth(`http://127.0.0.1:${restPort}/health`, started);
      return { rest: boundAddresses('tcp', restPort), tunnel: boundAddresses('tcp', tunnelPort), quic: boundAddresses('udp', tunnelPort), stdout: started.stdout() };
    } finally {
      started.child.kill('SIGTERM');
      await started.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  };

  it('binds loopback only with the default admin key, and says so', async () => {
    const { rest, tunnel, quic, stdout } = await start({});
    expect({ rest, tunnel, quic }).toEqual({ rest: ['127.0.0.1'], tunnel: ['127.0.0.1'], quic: ['127.0.0.1'] });
    expect(stdout).toMatch(/listening on 127\.0\.0\.1 only: ADMIN_KEY is the well-known default/);
  });

  it('binds every address when LISTEN_HOST says so, even with the default key', async () => {
    const { rest, tunnel, quic, stdout } = await start({ LISTEN_HOST: '0.0.0.0' });
    expect({ rest, tunnel, quic }).toEqual({ rest: ['0.0.0.0'], tunnel: ['0.0.0.0'], quic: ['0.0.0.0'] });
    expect(stdout).not.toMatch(/only: ADMIN_KEY/);
  });
});

describe('on a terminal', () => {
  it('writes readable lines: the start banner, without JSON or route lines', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-tty-'));
    const [restPort, idpPort, tunnelPort] = [await freePort(), await freePort(), await freeTunnelPort()];
    let out = '';
    // script(1) runs the server on a pseudo-terminal, as an operator's shell would.
    const child = spawn('script', ['-qfec', `${process.execPath} ${MAIN}`, '/dev/null'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, REST_PORT: String(restPort), DEV_IDP_PORT: String(idpPort), UNIFIED_PORT: String(tunnelPort), CERTIFICATE_PATH: join(dataDir, 'certs') },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout!.on('data', (d) => (out += d));
    const exited = new Promise((res) => child.once('exit', res));
    try {
      await eventually('server listening', () => /server listening/.test(out), { timeoutMs: 30_000 }).catch(() => undefined);
      const lines = out.split(/\r?\n/).filter((l) => l.trim() !== '');
      expect(lines).toContainEqual(expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} INFO  \[Relay\] tunnel certificate SHA-256 fingerprint: [0-9a-f]{64} \(runtimes: --pin sha256:[0-9a-f]{64} or --ca /));
      expect(lines).toContainEqual(expect.stringMatching(/INFO  server listening url=http:\/\/127\.0\.0\.1:/));
      expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
      expect(out).not.toMatch(/Mapped \{/);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the development identity provider across a restart', () => {
  it("still honours the CLI's refresh token after the server restarts on the same data directory", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-idp-restart-'));
    const [restPort, idpPort, tunnelPort] = [await freePort(), await freePort(), await freeTunnelPort()];
    const env = { DATA_DIR: dataDir, REST_PORT: String(restPort), DEV_IDP_PORT: String(idpPort), UNIFIED_PORT: String(tunnelPort), CERTIFICATE_PATH: join(dataDir, 'certs') };
    const url = `http://127.0.0.1:${restPort}`;
    const home = cliHome({ url });
    let started = startServer(env);
    try {
      await waitForHealth(`${url}/health`, started);
      await svcLogin(home, 'dev@restart.test');

      started.child.kill('SIGTERM');
      await started.exited;
      started = startServer(env);
      await waitForHealth(`${url}/health`, started);

      // The access token has expired: the next command must refresh it at the restarted provider.
      const document = JSON.parse(readFileSync(home.credentialsPath, 'utf8'));
      document.credentials.OAuth2Token.expires_at = 1;
      writeFileSync(home.credentialsPath, JSON.stringify(document));
      const listed = await svc(home, ['devices', 'list', '--json']);
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(readFileSync(home.credentialsPath, 'utf8')).credentials.OAuth2Token.expires_at).toBeGreaterThan(Date.now() / 1000);
    } finally {
      started.child.kill('SIGTERM');
      await started.exited;
      home.remove();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('start-up refusals', () => {
  const refuse = async (env: Record<string, string>) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-refuse-'));
    const started = startServer({ DATA_DIR: dataDir, ...env });
    const code = await started.exited;
    rmSync(dataDir, { recursive: true, force: true });
    return { code, stderr: started.stderr() };
  };

  it('stops on a bad value, naming the variable', async () => {
    const { code, stderr } = await refuse({ REST_PORT: 'abc', RUST_LOG: 'verbose' });
    expect(code).toBe(2);
    expect(stderr).toMatch(/REST_PORT/);
    expect(stderr).toMatch(/RUST_LOG/);
  });

  it('refuses production with the default admin key, without TLS, DB_URI or OAuth settings', async () => {
    const { code, stderr } = await refuse({ STAGING: '0', CERTIFICATE_PATH: '/nonexistent' });
    expect(code).toBe(2);
    for (const name of ['ADMIN_KEY', 'CERTIFICATE_PATH', 'OAUTH_ISSUER', 'OAUTH_AUDIENCE', 'DB_URI']) expect(stderr).toContain(name);
  });
});
