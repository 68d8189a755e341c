/**
 * Large file answers over both tunnel carriers (`--transport tcp` and `--transport quic`), the
 * real server, runtime and `svc` binary: listings of 2,000 to 20,000 entries again and again
 * (written by the runtime with flow control, relayed by the server unparsed), a 150,000-entry
 * directory listed by `svc ls` as a table, and a few MiB up and back.
 */
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useFleet } from './fixtures/fleet';
import { attemptOf } from './fixtures/operation-client';
import type { RuntimeProcess } from './fixtures/runtime-process';
import { CliHome, svc } from './fixtures/svc-cli';

const ALICE = 'alice@files-carriers.test';
const SIZES = [2_000, 5_000, 10_000, 20_000];
const ROUNDS = 3;
const HUGE = 150_000;

/** `count` empty files named f000001… in a new directory. */
function directoryOf(parent: string, count: number): string {
  const dir = join(parent, `dir-${count}`);
  mkdirSync(dir);
  execFileSync('sh', ['-c', `cd "$1" && seq -f 'f%06g' 1 ${count} | xargs touch`, 'sh', dir]);
  return dir;
}

describe('large file answers on both carriers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-files-carriers-'));
  const directories = new Map<number, string>();
  beforeAll(() => {
    for (const count of [...SIZES, HUGE]) directories.set(count, directoryOf(dir, count));
  }, 180_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const fleet = useFleet({ relay: true, users: { alice: ALICE } });
  let cli: CliHome;

  beforeAll(() => {
    cli = fleet.user('alice').home;
  });

  describe.each(['tcp', 'quic'] as const)('over %s', (carrier) => {
    const deviceId = `carrier-${carrier}`;
    let runtime: RuntimeProcess;

    beforeAll(async () => {
      runtime = (await fleet.addDevice(deviceId, { owner: 'alice', runtime: { env: { SVC_TUNNEL_TRANSPORT: carrier } } })).runtime!;
      expect(await runtime.waitForLog('tunnel up')).toMatchObject({ carrier });
    });
    afterAll(async () => {
      runtime?.kill('SIGTERM');
      await runtime?.exited;
    });

    it(`lists directories of ${SIZES.join(', ')} entries, ${ROUNDS} times each, every time complete`, async () => {
      const failures: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const count of SIZES) {
          const answer = await attemptOf(fleet.user('alice').route('device_ls.list', { device: deviceId, path: directories.get(count)! }));
          if (!answer.ok || !Array.isArray(answer.result) || answer.result.length !== count) {
            failures.push(`${count} entries, round ${round}: ${JSON.stringify(answer.ok ? answer.result : answer.error).slice(0, 200)}`);
          }
        }
      }
      expect(failures).toEqual([]);
    }, 300_000);

    it(`prints a ${HUGE.toLocaleString('en')}-entry directory as a table with svc ls`, async () => {
      const result = await svc(cli, ['ls', `${deviceId}:${directories.get(HUGE)}`], { timeoutMs: 180_000 });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(HUGE + 1);
      expect(lines[1]).toMatch(/^-rw\S+\s+0 B\s+\S+Z\s+f000001$/);
      expect(lines[HUGE]).toMatch(/f150000$/);
    }, 240_000);

    it('copies a few MiB up and back byte for byte', async () => {
      const original = join(dir, `up-${carrier}.bin`);
      writeFileSync(original, randomBytes(6 * 1024 * 1024 + 7));
      const onDevice = join(dir, `on-device-${carrier}.bin`);
      const back = join(dir, `back-${carrier}.bin`);
      expect(await svc(cli, ['cp', original, `${deviceId}:${onDevice}`])).toMatchObject({ code: 0, stderr: '' });
      expect(await svc(cli, ['cp', `${deviceId}:${onDevice}`, back])).toMatchObject({ code: 0, stderr: '' });
      const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
      expect(digest(back)).toBe(digest(original));
    }, 120_000);
  });
});
