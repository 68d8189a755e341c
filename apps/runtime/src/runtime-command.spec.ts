import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { readCredentials, writeCredentials } from '@svc/common';
import { logoutRuntime, runRuntime } from './runtime-command';
import type { RuntimeIo } from './runtime-daemon';

function capture(): RuntimeIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  return { stdin: new PassThrough(), stdout, stderr, out: () => out, err: () => err };
}

describe('runtime commands', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-cmd-'));
    env = { HOME: dir, SVC_CONFIG_DIR: join(dir, 'svc') };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('logout removes the device credentials and keeps the CLI login', async () => {
    const file = join(dir, 'svc', 'credentials.json');
    writeCredentials(file, { credentials: { OAuth2Token: { access_token: 'a', expires_at: 1 } }, device_credentials: { api_key: 'svc_x', identity_key: 'k' } });
    const io = capture();
    expect(await logoutRuntime([], env, io)).toBe(0);
    expect(io.out()).toBe(`Device credentials removed from ${file}\n`);
    expect(readCredentials(file)).toEqual({ credentials: { OAuth2Token: { access_token: 'a', expires_at: 1 } } });
  });

  it('logout says so when there is nothing to remove', async () => {
    const io = capture();
    expect(await logoutRuntime([], env, io)).toBe(0);
    expect(io.out()).toContain('No device credentials in');
  });

  it('logout reports a corrupt credentials file (exit 2) without touching it', async () => {
    const file = join(dir, 'svc', 'credentials.json');
    writeCredentials(file, {});
    writeFileSync(file, '{oops');
    const io = capture();
    expect(await logoutRuntime([], env, io)).toBe(2);
    expect(io.err()).toContain('is not valid JSON');
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [[], /the server address is required: --server <url> or SVC_SERVER_URL/],
    [['--server', 'ftp://x'], /--server: must use https or http/],
    [['--server', 'http://x', '--pin', 'nope'], /--pin: must be a SHA-256 certificate fingerprint/],
  ])('run %p exits 2 with a message naming the problem', async (argv, message) => {
    const io = capture();
    expect(await runRuntime(argv, env, io)).toBe(2);
    expect(io.err()).toMatch(message);
  });

  it('run --help prints the options and exits 0', async () => {
    const io = capture();
    expect(await runRuntime(['--help'], env, io)).toBe(0);
    expect(io.out()).toContain('--reregister');
  });

  it('run exits 2 when the CA file cannot be read', async () => {
    const io = capture();
    expect(await runRuntime(['--server', 'http://127.0.0.1:1', '--ca', join(dir, 'missing.pem')], env, io)).toBe(2);
    expect(io.err()).toContain('cannot read the CA file');
  });
});
