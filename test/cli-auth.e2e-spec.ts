/**
 * `svc login`, token refresh and `svc logout`, driving the real binary against the real server
 * and the real identity provider; the test is the user's browser.
 */
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { connect, createServer, Server } from 'node:net';
import { dirname, join } from 'node:path';
import { useFleet } from './fixtures/fleet';
import { collect, CliHome, cliHome, spawnSvc, svc, svcJson, svcLogin } from './fixtures/svc-cli';
import { eventually } from './fixtures/eventually';
import { freePort } from './fixtures/free-port';

const ALICE = 'alice@cli-auth.test';

interface CredentialsFile {
  credentials?: { OAuth2Token?: { access_token: string; refresh_token: string; expires_at: number } };
  [key: string]: unknown;
}

describe('svc login / refresh / logout (real binary, real identity provider)', () => {
  // Signing in is what this suite tests: its homes log in with the real `svc login`.
  const fleet = useFleet({});
  const homes: CliHome[] = [];
  const home = (env: Record<string, string> = {}) => {
    const created = cliHome(fleet.server, env);
    homes.push(created);
    return created;
  };
  const readCredentials = (h: CliHome) => JSON.parse(readFileSync(h.credentialsPath, 'utf8')) as CredentialsFile;

  afterAll(() => {
    for (const h of homes) h.remove();
  });

  it('logs in with the device grant and stores the token record 0600, keeping other keys', async () => {
    const h = home();
    mkdirSync(dirname(h.credentialsPath), { recursive: true });
    writeFileSync(h.credentialsPath, JSON.stringify({ device_credentials: { api_key: 'kept' }, other: 1 }), { mode: 0o600 });
    const result = await svcLogin(h, ALICE);
    expect(result.stderr).toMatch(/To sign in, open http\S+ and enter the code [A-Z]{4}-[A-Z]{4}/);
    const doc = readCredentials(h);
    expect(doc.device_credentials).toEqual({ api_key: 'kept' });
    expect(doc.other).toBe(1);
    const token = doc.credentials!.OAuth2Token!;
    expect(token.access_token).toEqual(expect.any(String));
    expect(token.refresh_token).toEqual(expect.any(String));
    expect(token.expires_at).toBeGreaterThan(Date.now() / 1000);
    expect(statSync(h.credentialsPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(h.credentialsPath, 'utf8')).toContain('\n  "credentials": {');
    expect(await svcJson(h, ['devices', 'list'])).toEqual([]);
  });

  it('refreshes an expired access token before the command and saves the rotated refresh token', async () => {
    const h = home();
    await svcLogin(h, ALICE);
    const before = readCredentials(h).credentials!.OAuth2Token!;
    const expired = { ...readCredentials(h), credentials: { OAuth2Token: { ...before, expires_at: Math.floor(Date.now() / 1000) - 10 } } };
    writeFileSync(h.credentialsPath, JSON.stringify(expired));
    expect(await svcJson(h, ['devices', 'list'])).toEqual([]);
    const after = readCredentials(h).credentials!.OAuth2Token!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.expires_at).toBeGreaterThan(Date.now() / 1000);
    expect(statSync(h.credentialsPath).mode & 0o777).toBe(0o600);
  });

  it('tells the user to log in again when the refresh token is no longer valid (exit 3)', async () => {
    const h = home();
    await svcLogin(h, ALICE);
    const token = readCredentials(h).credentials!.OAuth2Token!;
    writeFileSync(h.credentialsPath, JSON.stringify({ credentials: { OAuth2Token: { ...token, refresh_token: 'revoked-or-made-up', expires_at: 1 } } }));
    const result = await svc(h, ['devices', 'list']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/run "svc login" again/);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack without --debug
  });

  it('says "Not logged in" without credentials, in --json too', async () => {
    const h = home();
    const plain = await svc(h, ['devices', 'list']);
    expect(plain.code).toBe(3);
    expect(plain.stderr).toMatch(/Not logged in: run "svc login"/);
    const json = await svc(h, ['devices', 'list', '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toEqual({ error: expect.objectContaining({ code: 'UNAUTHENTICATED', exit_code: 3 }) });
  });

  it('prints "Failed to auth" when the sign-in is refused', async () => {
    const h = home({ SVC_AUTH_CLIENT_ID: 'no-such-client' });
    const result = await svc(h, ['login', '--no-browser']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('Failed to auth');
  });

  it('logout removes only the user token', async () => {
    const h = home();
    await svcLogin(h, ALICE);
    const doc = readCredentials(h);
    writeFileSync(h.credentialsPath, JSON.stringify({ ...doc, device_credentials: { api_key: 'kept' } }));
    expect(await svcJson(h, ['logout'])).toEqual({ status: 'logged_out' });
    expect(readCredentials(h)).toEqual({ device_credentials: { api_key: 'kept' } });
    expect((await svc(h, ['devices', 'list'])).code).toBe(3);
    expect(await svcJson(h, ['logout'])).toEqual({ status: 'not_logged_in' });
  });

  it('a damaged credentials file is a clear error naming the file, not a crash', async () => {
    const h = home();
    mkdirSync(dirname(h.credentialsPath), { recursive: true });
    writeFileSync(h.credentialsPath, '{"credentials": ');
    const result = await svc(h, ['devices', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Credentials file ${h.credentialsPath} is not valid JSON`);
    expect(result.stderr).not.toMatch(/bug in svc/);
  });

  it('refuses plain HTTP to a host that is not this machine, before sending anything', async () => {
    const h = home({ SVC_SERVER_URL: 'http://svc.example.com' });
    const result = await svc(h, ['devices', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/plain HTTP; tokens travel only over HTTPS/);
  });

  it('retries a server that refuses connections, with backoff, and succeeds once it answers', async () => {
    const h = home();
    await svcLogin(h, ALICE);
    // A port with nothing on it yet; a relay to the real server opens there a moment after svc starts.
    const port = await freePort();
    const target = new URL(fleet.server.url);
    const refusals = join(h.dir, 'connection-errors');
    const probe = `--require ${join(__dirname, 'fixtures/connection-refusals-probe.js')}`;
    const child = spawnSvc(h, ['devices', 'list', '--json'], { env: { SVC_SERVER_URL: `http://127.0.0.1:${port}`, NODE_OPTIONS: probe, SVC_CONNECTION_ERRORS_FILE: refusals } });
    const done = collect(child, ['devices', 'list']);
    // Once svc's first attempt was refused, and before its retries run out (0.5 + 1 + 2 s after it).
    await eventually("svc's first connection to be refused", () => existsSync(refusals) && readFileSync(refusals, 'utf8').includes('ECONNREFUSED'), {
      giveUp: () => (child.exitCode === null ? undefined : `svc exited with ${child.exitCode}`),
    });
    const relay: Server = createServer((socket) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const end of [socket, upstream]) end.on('error', () => (end === socket ? upstream : socket).destroy());
      socket.pipe(upstream).pipe(socket);
    }).listen(port, '127.0.0.1');
    try {
      const result = await done;
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: expect.stringMatching(/^\[\]\s*$/) });
    } finally {
      await new Promise((resolve) => relay.close(resolve));
    }
  });
});
