import * as fs from 'node:fs';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  clearDeviceCredentials,
  configDirectory,
  credentialsFilePath,
  CredentialsFileError,
  readCredentials,
  updateCredentials,
  writeCredentials,
} from './credentials-file';

describe('credentials file', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-creds-'));
    file = join(dir, 'svc', 'credentials.json');
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lives in SVC_CONFIG_DIR, else under $HOME/.config/svc', () => {
    expect(credentialsFilePath({ HOME: '/home/pi' })).toBe('/home/pi/.config/svc/credentials.json');
    expect(configDirectory({ HOME: '/home/pi', SVC_CONFIG_DIR: '/etc/svc' })).toBe('/etc/svc');
  });

  it('reads a missing file as empty', () => {
    expect(readCredentials(file)).toEqual({});
  });

  it('writes pretty JSON that reads back the same', () => {
    writeCredentials(file, { device_credentials: { api_key: 'svc_abc', device_id: 'pi-1' } });
    expect(readFileSync(file, 'utf8')).toBe('{\n  "device_credentials": {\n    "api_key": "svc_abc",\n    "device_id": "pi-1"\n  }\n}\n');
    expect(readCredentials(file)).toEqual({ device_credentials: { api_key: 'svc_abc', device_id: 'pi-1' } });
  });

  it('is 0600 (directory 0700) even when the umask would allow group and world reads', () => {
    const previous = process.umask(0o022);
    try {
      writeCredentials(file, { device_credentials: { api_key: 'svc_abc' } });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'svc')).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previous);
    }
  });

  it('tightens a file that was left world-readable', () => {
    fs.mkdirSync(join(dir, 'svc'));
    writeFileSync(file, '{}', { mode: 0o644 });
    writeCredentials(file, { device_credentials: { api_key: 'svc_abc' } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('keeps every other key when one section changes', () => {
    const cli = { OAuth2Token: { access_token: 'at', refresh_token: 'rt', expires_at: 1700000000 } };
    writeCredentials(file, { credentials: cli, extra: { nested: [1, 2] }, device_credentials: { api_key: 'old', custom: true } });
    updateCredentials(file, (doc) => {
      doc.device_credentials = { ...doc.device_credentials, api_key: 'svc_new' };
    });
    expect(readCredentials(file)).toEqual({ credentials: cli, extra: { nested: [1, 2] }, device_credentials: { api_key: 'svc_new', custom: true } });
  });

  it('logout clears only the device section', () => {
    const cli = { OAuth2Token: { access_token: 'at', expires_at: 1 } };
    writeCredentials(file, { credentials: cli, device_credentials: { api_key: 'svc_abc', identity_key: 'k' } });
    expect(clearDeviceCredentials(file)).toBe(true);
    expect(readCredentials(file)).toEqual({ credentials: cli });
    expect(clearDeviceCredentials(file)).toBe(false);
  });

  it.each([
    ['not JSON', '{"device_credentials": {', /is not valid JSON/],
    ['an array', '[]', /does not hold a JSON object/],
    ['a non-object section', '{"device_credentials": "x"}', /"device_credentials" that is not an object/],
    ['a non-string key', '{"device_credentials": {"api_key": 42}}', /"device_credentials.api_key" that is not a string/],
  ])('refuses a corrupt file (%s) with a clear error naming it, and leaves it alone', (_case, content, message) => {
    fs.mkdirSync(join(dir, 'svc'));
    writeFileSync(file, content);
    expect(() => readCredentials(file)).toThrow(CredentialsFileError);
    expect(() => readCredentials(file)).toThrow(message);
    expect(() => readCredentials(file)).toThrow(file);
    expect(() => updateCredentials(file, () => undefined)).toThrow(CredentialsFileError);
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it('removes its temp file and names the file when the final rename fails', () => {
    fs.mkdirSync(join(file, 'occupied'), { recursive: true });
    expect(() => writeCredentials(file, { device_credentials: { api_key: 'svc_new' } })).toThrow(/Cannot write credentials file .*credentials\.json/);
    expect(readdirSync(join(dir, 'svc'))).toEqual(['credentials.json']);
    expect(readdirSync(file)).toEqual(['occupied']);
  });

  it('is never seen half-written by a concurrent reader in another process', async () => {
    writeCredentials(file, { device_credentials: { api_key: 'svc_0' } });
    const stop = join(dir, 'stop');
    // A plain-JS reader: parses the file in a tight loop and reports progress and failures.
    const reader = spawn(process.execPath, [
      '-e',
      `const fs = require('fs'); let reads = 0, bad = 0;
       while (!fs.existsSync(${JSON.stringify(stop)})) {
         try { JSON.parse(fs.readFileSync(${JSON.stringify(file)}, 'utf8')); } catch { bad++; }
         if (++reads % 50 === 0) console.log(JSON.stringify({ reads, bad }));
       }
       console.log(JSON.stringify({ reads, bad, done: true }));`,
    ]);
    const lines = createInterface({ input: reader.stdout! });
    let last = { reads: 0, bad: 0, done: false };
    const finished = new Promise<void>((resolve) => lines.on('line', (line) => ((last = JSON.parse(line)), last.done && resolve())));
    const big = 'x'.repeat(256 * 1024);
    for (let i = 1; last.reads < 300; i++) {
      writeCredentials(file, { device_credentials: { api_key: `svc_${i}` }, padding: big });
      await new Promise((resolve) => setImmediate(resolve));
    }
    writeFileSync(stop, '');
    await finished;
    expect(last.bad).toBe(0);
    expect(last.reads).toBeGreaterThanOrEqual(300);
  });
});
