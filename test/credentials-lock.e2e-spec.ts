/**
 * The credentials file is shared by the CLI and the runtime (libs/common/src/credentials-file.ts):
 * several real processes updating it at the same moment, each its own key, lose nothing; the
 * file stays 0600, parses at every instant, and no lock or temp file is left behind. A lock left
 * by a killed process does not block the next writer.
 * Not on useFleet: no server; real processes race on one credentials file.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launcherHook } from './fixtures/runtime-process';

const SOURCE = resolve(__dirname, '../libs/common/src/credentials-file.ts');
const WRITERS = 6;
const UPDATES = 40;

/** A process that does `updates` read-modify-write cycles, each setting `<key>.<n>`, as fast as it can. */
function writer(path: string, key: string, updates: number): ChildProcess {
  const script = `
    const { updateCredentials } = require(${JSON.stringify(SOURCE)});
    for (let n = 0; n < ${updates}; n++) {
      updateCredentials(${JSON.stringify(path)}, (doc) => {
        doc.stress = doc.stress || {};
        doc.stress[${JSON.stringify(key)} + '.' + n] = n;
      });
    }`;
  return spawn(process.execPath, ['-r', launcherHook(), '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
}

function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  return new Promise((done) => child.once('close', (code) => done({ code, stderr })));
}

describe('credentials file under concurrent writers (real processes)', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-cred-lock-'));
    path = join(dir, 'credentials.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it(`${WRITERS} processes × ${UPDATES} updates of their own keys: none lost, the file always whole and 0600`, async () => {
    writeFileSync(path, `${JSON.stringify({ credentials: { OAuth2Token: { access_token: 'kept', expires_at: 1 } } })}\n`, { mode: 0o600 });
    const children = Array.from({ length: WRITERS }, (_, index) => writer(path, `w${index}`, UPDATES));
    const results = children.map(exited);
    // A reader during the storm never sees a half-written file.
    let reads = 0;
    let running = true;
    void Promise.all(results).then(() => (running = false));
    while (running) {
      JSON.parse(readFileSync(path, 'utf8'));
      expect(statSync(path).mode & 0o777).toBe(0o600);
      reads++;
      await new Promise((done) => setImmediate(done));
    }
    for (const result of await Promise.all(results)) expect(result).toEqual({ code: 0, stderr: '' });

    const doc = JSON.parse(readFileSync(path, 'utf8'));
    const expected: Record<string, number> = {};
    for (let w = 0; w < WRITERS; w++) for (let n = 0; n < UPDATES; n++) expected[`w${w}.${n}`] = n;
    expect(doc.stress).toEqual(expected);
    expect(doc.credentials.OAuth2Token.access_token).toBe('kept');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['credentials.json']);
    expect(reads).toBeGreaterThan(0);
  });

  it('takes over the lock of a writer that was killed while holding it', async () => {
    // What a SIGKILLed holder leaves: its lock, naming a pid that no longer runs.
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((done) => dead.once('exit', done));
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: dead.pid, boot_id: bootId, nonce: 'left-behind' }), { mode: 0o600 });
    expect(await exited(writer(path, 'after', 3))).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(readFileSync(path, 'utf8')).stress).toEqual({ 'after.0': 0, 'after.1': 1, 'after.2': 2 });
    expect(readdirSync(dir)).toEqual(['credentials.json']);
  });
});
