/**
 * `svc ls`, `svc cp` and `svc sync` end to end: the real binary against the real server and
 * identity provider, and two real runtime processes as devices. The devices' file systems are
 * this machine's, so the test prepares and checks the device side with plain fs calls.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { useFleet } from './fixtures/fleet';
import { CliHome, svc, svcInTerminal as inTerminal, svcJson } from './fixtures/svc-cli';

const ALICE = 'alice@cli-files.test';
const STRANGER = 'stranger@cli-files.test';
const MTIME = new Date('2024-03-04T05:06:07.000Z');

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Every path below `root` (directories with a trailing "/"), sorted. */
function tree(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .map((entry) => relative(root, join(entry.parentPath, entry.name)) + (entry.isDirectory() ? '/' : ''))
    .sort();
}

function writeRandomFile(path: string, bytes: number): string {
  writeFileSync(path, randomBytes(bytes));
  return sha256(path);
}

describe('svc ls, cp and sync (real binary, real runtimes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-files-'));
  const device = join(dir, 'device');
  const local = join(dir, 'local');
  mkdirSync(device);
  mkdirSync(local);
  const fleet = useFleet({
    users: { alice: ALICE, stranger: STRANGER },
    devices: { 'cf-1': { owner: 'alice', runtime: true }, 'cf-2': { owner: 'alice', runtime: true } },
  });
  let alice: CliHome;
  let stranger: CliHome;

  beforeAll(() => {
    alice = fleet.user('alice').home;
    stranger = fleet.user('stranger').home;
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  describe('svc ls', () => {
    const listed = () => join(device, 'ls');

    beforeAll(() => {
      mkdirSync(join(listed(), 'sub'), { recursive: true });
      writeFileSync(join(listed(), 'b.txt'), 'bee');
      chmodSync(join(listed(), 'b.txt'), 0o640);
      utimesSync(join(listed(), 'b.txt'), MTIME, MTIME);
      chmodSync(join(listed(), 'sub'), 0o755);
      utimesSync(join(listed(), 'sub'), MTIME, MTIME);
    });

    it('prints the typed entries under --json', async () => {
      expect(await svcJson(alice, ['ls', `cf-1:${listed()}`])).toEqual([
        { name: 'b.txt', is_dir: false, size: 3, mode: 0o640, mtime: MTIME.getTime(), is_symlink: false },
        { name: 'sub', is_dir: true, size: expect.any(Number), mode: 0o755, mtime: MTIME.getTime(), is_symlink: false },
      ]);
    });

    it('prints a table for people, directories marked with "/"', async () => {
      const result = await svc(alice, ['ls', `cf-1:${listed()}`]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout.split('\n').map((line) => line.split(/ {2,}/))).toEqual([
        ['MODE', 'SIZE', 'MODIFIED', 'NAME'],
        ['-rw-r-----', '3 B', '2024-03-04T05:06:07Z', 'b.txt'],
        ['drwxr-xr-x', '-', '2024-03-04T05:06:07Z', 'sub/'],
        [''],
      ]);
    });

    it('escapes control characters of device file names in the table, and keeps them raw in --json', async () => {
      const evil = join(device, 'evil');
      mkdirSync(evil);
      writeFileSync(join(evil, 'evil\x1b[31mname'), '');
      const human = await svc(alice, ['ls', `cf-1:${evil}`]);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain('evil\\x1b[31mname');
      expect(human.stdout).not.toContain('\x1b');
      const entries = await svcJson<{ name: string }[]>(alice, ['ls', `cf-1:${evil}`]);
      expect(entries.map((entry) => entry.name)).toEqual(['evil\x1b[31mname']);
    });
  });

  describe('svc cp', () => {
    it('copies a few MiB up and back byte for byte, keeping mode and mtime, silently when not on a terminal', async () => {
      const original = join(local, 'payload.bin');
      const digest = writeRandomFile(original, 3 * 1024 * 1024 + 17);
      chmodSync(original, 0o600);
      utimesSync(original, MTIME, MTIME);

      const up = await svc(alice, ['cp', original, `cf-1:${join(device, 'up/payload.bin')}`]);
      expect(up).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(sha256(join(device, 'up/payload.bin'))).toBe(digest);

      const back = join(local, 'back.bin');
      expect(await svcJson(alice, ['cp', `cf-1:${join(device, 'up/payload.bin')}`, back])).toEqual({ status: 'copied' });
      expect(sha256(back)).toBe(digest);
      expect(statSync(back).mode & 0o777).toBe(0o600);
      expect(statSync(back).mtimeMs).toBe(MTIME.getTime());
    });

    it('copies into a directory target under the file name, both ways', async () => {
      writeFileSync(join(local, 'note.txt'), 'into a directory\n');
      mkdirSync(join(device, 'inbox'));
      expect(await svcJson(alice, ['cp', join(local, 'note.txt'), `cf-1:${join(device, 'inbox')}`])).toEqual({ status: 'copied' });
      expect(readFileSync(join(device, 'inbox/note.txt'), 'utf8')).toBe('into a directory\n');

      mkdirSync(join(local, 'downloads'));
      expect(await svcJson(alice, ['cp', `cf-1:${join(device, 'inbox/note.txt')}`, join(local, 'downloads')])).toEqual({ status: 'copied' });
      expect(readFileSync(join(local, 'downloads/note.txt'), 'utf8')).toBe('into a directory\n');
    });

    it('copies from one device to another', async () => {
      const digest = writeRandomFile(join(device, 'from-cf-1.bin'), 256 * 1024);
      expect(await svcJson(alice, ['cp', `cf-1:${join(device, 'from-cf-1.bin')}`, `cf-2:${join(device, 'to-cf-2.bin')}`])).toEqual({ status: 'copied' });
      expect(sha256(join(device, 'to-cf-2.bin'))).toBe(digest);
    });

    it('draws a progress bar with rate and ETA on a terminal, and none under --json', async () => {
      const source = join(local, 'progress.bin');
      writeRandomFile(source, 8 * 1024 * 1024);
      const shown = await inTerminal(alice, ['cp', source, `cf-1:${join(device, 'progress.bin')}`]);
      expect(shown.code).toBe(0);
      expect(shown.output).toMatch(/Copying \[[^\]]+\] 100% \| 8\.0 MiB of 8\.0 MiB \| \d+(\.\d)? (B|KiB|MiB|GiB)\/s \| ETA 0s/);

      const quiet = await inTerminal(alice, ['cp', source, `cf-1:${join(device, 'progress.bin')}`, '--json']);
      expect(quiet.code).toBe(0);
      expect(JSON.parse(quiet.output)).toEqual({ status: 'copied' });
    });
  });

  describe('svc sync', () => {
    const source = () => join(local, 'site');
    const target = () => join(device, 'site');

    beforeAll(() => {
      mkdirSync(join(source(), 'sub/deep'), { recursive: true });
      mkdirSync(join(source(), 'node_modules/x'), { recursive: true });
      writeFileSync(join(source(), 'a.txt'), 'alpha');
      writeFileSync(join(source(), 'sub/deep/b.txt'), 'beta');
      writeFileSync(join(source(), 'debug.log'), 'log');
      writeFileSync(join(source(), 'node_modules/x/index.js'), 'x');
      mkdirSync(join(target(), 'old/dir'), { recursive: true });
      writeFileSync(join(target(), 'old/dir/c.txt'), 'gone soon');
      writeFileSync(join(target(), 'stale.txt'), 'stale');
      writeFileSync(join(target(), 'kept.log'), 'excluded: never deleted');
    });

    const flags = ['--delete', '--exclude', '*.log', '--exclude', 'node_modules/'];

    it('changes nothing with --dry-run and reports the plan', async () => {
      const before = tree(target());
      const report = await svcJson(alice, ['sync', source(), `cf-1:${target()}`, ...flags, '--dry-run']);
      expect(report).toEqual({ status: 'synced', dry_run: true, copy: ['a.txt', 'sub/deep/b.txt'], delete: ['old', 'stale.txt'], unchanged: 0 });
      const human = await svc(alice, ['sync', source(), `cf-1:${target()}`, ...flags, '--dry-run']);
      expect(human).toMatchObject({ code: 0, stderr: '' });
      expect(human.stdout).toBe('would copy    a.txt\nwould copy    sub/deep/b.txt\nwould delete  old\nwould delete  stale.txt\nWould copy 2 files and delete 2 entries; 0 unchanged.\n');
      expect(tree(target())).toEqual(before);
    });

    it('copies, deletes and skips excluded paths, leaving exactly the expected tree', async () => {
      const report = await svcJson(alice, ['sync', source(), `cf-1:${target()}`, ...flags]);
      expect(report).toEqual({ status: 'synced', dry_run: false, copy: ['a.txt', 'sub/deep/b.txt'], delete: ['old', 'stale.txt'], unchanged: 0 });
      expect(tree(target())).toEqual(['a.txt', 'kept.log', 'sub/', 'sub/deep/', 'sub/deep/b.txt']);
      expect(readFileSync(join(target(), 'sub/deep/b.txt'), 'utf8')).toBe('beta');
      expect(readFileSync(join(target(), 'kept.log'), 'utf8')).toBe('excluded: never deleted');

      const again = await svc(alice, ['sync', source(), `cf-1:${target()}`, ...flags]);
      expect(again).toMatchObject({ code: 0, stdout: 'Copied 0 files, deleted 0 entries, 2 unchanged.\n', stderr: '' });
    });

    it('syncs from the device into a new local directory, with a progress bar on a terminal', async () => {
      writeRandomFile(join(target(), 'big.bin'), 2 * 1024 * 1024);
      const copy = join(local, 'site-copy');
      const shown = await inTerminal(alice, ['sync', `cf-1:${target()}`, copy, '--exclude', 'kept.log']);
      expect(shown.code).toBe(0);
      expect(shown.output).toMatch(/Syncing \[[^\]]+\] 100% \| 2\.0 MiB of 2\.0 MiB \| .+\/s \| ETA 0s/);
      expect(shown.output).toContain('Copied 3 files, deleted 0 entries, 0 unchanged.');
      expect(tree(copy)).toEqual(['a.txt', 'big.bin', 'sub/', 'sub/deep/', 'sub/deep/b.txt']);
      expect(sha256(join(copy, 'big.bin'))).toBe(sha256(join(target(), 'big.bin')));
    });
  });

  describe('errors', () => {
    /** Runs a failing command: exit 2, nothing on stdout, one `Error:` line on stderr (answered without its request id). */
    async function failure(home: CliHome, args: string[]): Promise<string> {
      const result = await svc(home, args);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(/^Error: [^\n]+\n$/);
      return result.stderr.replace(/ \(request [^)]+\)\n$/, '\n');
    }

    it('fails with one line and exit 2 for a missing remote file or directory, creating nothing', async () => {
      const missing = join(device, 'nope.txt');
      expect(await failure(alice, ['cp', `cf-1:${missing}`, join(local, 'nope.txt')])).toBe(`Error: No such file or directory: ${missing}\n`);
      expect(existsSync(join(local, 'nope.txt'))).toBe(false);
      expect(await failure(alice, ['ls', `cf-1:${join(device, 'no-dir')}`])).toMatch(/^Error: No such file or directory/);
    });

    it.each([
      ['ls without <device>:', ['ls', 'nodevice'], /^Error: Expected <device>:<path>/],
      ['cp between two local paths', ['cp', 'a.txt', 'b.txt'], /write one side as <device>:<path>/],
      ['sync between two local paths', ['sync', 'a', 'b'], /write one side as <device>:<path>/],
    ])('refuses %s with exit 2', async (_name, args, message) => {
      expect(await failure(alice, args)).toMatch(message);
    });

    it('answers a stranger exactly as for a device that does not exist', async () => {
      writeFileSync(join(local, 'up.txt'), 'x');
      const unknown = await failure(alice, ['ls', 'no-such-device:/']);
      expect(unknown).toMatch(/not found/i);
      expect(await failure(stranger, ['ls', 'cf-1:/'])).toBe(unknown);
      expect(await failure(stranger, ['cp', join(local, 'up.txt'), `cf-1:${join(device, 'never.txt')}`])).toBe(unknown);
      expect(await failure(stranger, ['sync', local, `cf-1:${join(device, 'never')}`])).toBe(unknown);
      const json = await svc(stranger, ['ls', 'cf-1:/', '--json']);
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'DEVICE_NOT_FOUND', message: expect.any(String), requestId: expect.any(String), exit_code: 2 } });
      expect(existsSync(join(device, 'never.txt'))).toBe(false);
    });

    it('documents each command with examples', async () => {
      for (const command of ['ls', 'cp', 'sync']) {
        const help = await svc(alice, [command, '--help']);
        expect(help.code).toBe(0);
        expect(help.stdout).toContain('EXAMPLES');
        expect(help.stdout).toContain(`$ svc ${command} `);
      }
    });
  });
});
