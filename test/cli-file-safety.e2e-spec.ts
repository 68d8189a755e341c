/**
 * What `svc cp`, `svc sync` and `svc ls` do at the edges an operator meets: the modes a copy
 * writes (no setuid, setgid or sticky bit crosses), what a stop signal leaves behind (nothing),
 * a destination written as a directory (`nd/`), `ls` of a single file, a device lost during an
 * upload, the links a sync leaves alone, the real binary, server and runtime.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './fixtures/eventually';
import { useFleet } from './fixtures/fleet';
import { CliHome, collect, spawnSvc, svc, SvcResult } from './fixtures/svc-cli';

const ALICE = 'alice@file-safety.test';
const DEVICE = 'safe-1';

describe('cp, sync and ls at the edges (real binary, real runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-file-safety-'));
  const device = join(dir, 'device');
  const local = join(dir, 'local');
  mkdirSync(device);
  mkdirSync(local);
  const fleet = useFleet({ users: { alice: ALICE }, devices: { [DEVICE]: { owner: 'alice', runtime: true } } });
  let alice: CliHome;

  beforeAll(() => {
    alice = fleet.user('alice').home;
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const ok = (result: SvcResult) => expect(result).toMatchObject({ code: 0, stderr: '' });
  const modeOf = (path: string) => statSync(path).mode & 0o7777;
  /** A file with exactly `mode` (chmod: the umask does not strip the special bits). */
  const fileWithMode = (path: string, mode: number) => {
    writeFileSync(path, `#!/bin/sh\necho ${mode.toString(8)}\n`);
    chmodSync(path, mode);
    expect(modeOf(path)).toBe(mode);
  };

  describe('modes', () => {
    it('drops setuid, setgid and sticky from a download by cp, and keeps the permissions', async () => {
      fileWithMode(join(device, 'suid.sh'), 0o4755);
      fileWithMode(join(device, 'sgid-sticky.sh'), 0o3750);
      ok(await svc(alice, ['cp', `${DEVICE}:${join(device, 'suid.sh')}`, join(local, 'suid.sh')]));
      ok(await svc(alice, ['cp', `${DEVICE}:${join(device, 'sgid-sticky.sh')}`, local]));
      expect(modeOf(join(local, 'suid.sh'))).toBe(0o755);
      expect(modeOf(join(local, 'sgid-sticky.sh'))).toBe(0o750);
    });

    it('drops them from the files a sync downloads, replaced ones included', async () => {
      const source = join(device, 'tree');
      mkdirSync(join(source, 'bin'), { recursive: true });
      fileWithMode(join(source, 'bin', 'tool'), 0o6711);
      const dest = join(local, 'tree');
      ok(await svc(alice, ['sync', `${DEVICE}:${source}`, dest]));
      expect(modeOf(join(dest, 'bin', 'tool'))).toBe(0o711);
      // Changed on the device: copied again over the local file, still without the bits.
      writeFileSync(join(source, 'bin', 'tool'), 'changed, and longer\n');
      chmodSync(join(source, 'bin', 'tool'), 0o4700);
      ok(await svc(alice, ['sync', `${DEVICE}:${source}`, dest]));
      expect(modeOf(join(dest, 'bin', 'tool'))).toBe(0o700);
    });

    it('drops them from an upload too: one rule on both sides', async () => {
      fileWithMode(join(local, 'up-suid.sh'), 0o4755);
      ok(await svc(alice, ['cp', join(local, 'up-suid.sh'), `${DEVICE}:${join(device, 'up-suid.sh')}`]));
      expect(modeOf(join(device, 'up-suid.sh'))).toBe(0o755);
    });
  });

  describe('a stop signal during a transfer', () => {
    const big = join(device, 'big.bin');
    beforeAll(() => {
      execFileSync('truncate', ['-s', '4G', big]); // sparse: read fast, copied slowly enough to be stopped
    });

    /** Starts `svc <args>`, waits until `started()` holds, sends `signal`: the result. */
    async function stopped(args: string[], started: () => boolean, signal: NodeJS.Signals, env: Record<string, string> = {}): Promise<SvcResult> {
      const child = spawnSvc(alice, args, { env });
      const result = collect(child, args, { timeoutMs: 120_000 });
      await eventually(`svc ${args[0]} under way`, started, { timeoutMs: 60_000 });
      child.kill(signal);
      return result;
    }
    const tempsIn = (directory: string) => readdirSync(directory).filter((name) => /\.svc-[0-9a-f]{12}\.tmp$/.test(name));
    const filling = (directory: string) => () => tempsIn(directory).some((name) => statSync(join(directory, name)).size > 0);

    it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('removes the temp file of a download cut by %s, and dies of it as before', async (signal) => {
      const target = join(local, `cut-${signal}`);
      mkdirSync(target);
      const result = await stopped(['cp', `${DEVICE}:${big}`, join(target, 'dl.bin')], filling(target), signal);
      expect(result).toMatchObject({ code: null, signal });
      expect(readdirSync(target)).toEqual([]);
    }, 180_000);

    it('removes the temp file of a sync cut by SIGINT', async () => {
      const source = join(device, 'big-tree');
      mkdirSync(source);
      execFileSync('truncate', ['-s', '4G', join(source, 'big.bin')]);
      const dest = join(local, 'big-tree');
      // Until the sync creates it, reading `dest` throws: "not yet" for eventually().
      const result = await stopped(['sync', `${DEVICE}:${source}`, dest], filling(dest), 'SIGINT');
      expect(result).toMatchObject({ code: null, signal: 'SIGINT' });
      expect(tempsIn(dest)).toEqual([]);
    }, 180_000);

    it('removes the spool of `svc cp -` (stdin) cut by SIGTERM before stdin ended', async () => {
      const spoolDir = mkdtempSync(join(dir, 'tmp-'));
      const child = spawnSvc(alice, ['cp', '-', `${DEVICE}:${join(device, 'from-stdin')}`], { env: { TMPDIR: spoolDir } });
      // Not collect(), which would end stdin: it stays open, as a pipe whose writer is still busy.
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      child.stdin!.write('the start of a stream that never ends\n');
      await eventually('the stdin spool', () => readdirSync(spoolDir).some((name) => name.startsWith('svc-stdin-')));
      child.kill('SIGTERM');
      expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
      expect(readdirSync(spoolDir)).toEqual([]);
    });
  });

  describe('a destination ending in "/"', () => {
    const source = join(device, 'hostname');
    beforeAll(() => {
      writeFileSync(source, 'edge-host\n');
      writeFileSync(join(local, 'plain-file'), 'x');
      writeFileSync(join(device, 'plain-file'), 'x');
    });
    const refused = (result: SvcResult, message: string) => {
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`Error: ${message}\n`);
    };

    it('downloads into an existing local directory, and refuses a missing one or a file instead of creating a file', async () => {
      mkdirSync(join(local, 'into'));
      ok(await svc(alice, ['cp', `${DEVICE}:${source}`, `${join(local, 'into')}/`]));
      expect(readFileSync(join(local, 'into', 'hostname'), 'utf8')).toBe('edge-host\n');

      refused(await svc(alice, ['cp', `${DEVICE}:${source}`, 'nd/'], { cwd: local }), 'No such directory: nd/');
      expect(existsSync(join(local, 'nd'))).toBe(false);
      refused(await svc(alice, ['cp', `${DEVICE}:${source}`, `${join(local, 'plain-file')}/`]), `Not a directory: ${join(local, 'plain-file')}/`);
      expect(readFileSync(join(local, 'plain-file'), 'utf8')).toBe('x');
    });

    it('uploads into an existing device directory, and refuses a missing one or a file there', async () => {
      writeFileSync(join(local, 'up.txt'), 'uploaded\n');
      mkdirSync(join(device, 'into'));
      ok(await svc(alice, ['cp', join(local, 'up.txt'), `${DEVICE}:${join(device, 'into')}/`]));
      expect(readFileSync(join(device, 'into', 'up.txt'), 'utf8')).toBe('uploaded\n');

      const missing = `${join(device, 'nd2')}/`;
      refused(await svc(alice, ['cp', join(local, 'up.txt'), `${DEVICE}:${missing}`]), `No such directory: ${DEVICE}:${missing}`);
      expect(existsSync(join(device, 'nd2'))).toBe(false);
      const file = await svc(alice, ['cp', join(local, 'up.txt'), `${DEVICE}:${join(device, 'plain-file')}/`]);
      expect(file.code).toBe(2);
      expect(file.stderr).toMatch(/^Error: Not a directory: /);
      expect(readFileSync(join(device, 'plain-file'), 'utf8')).toBe('x');
    });
  });

  describe('ls of a file', () => {
    it('lists the file alone, named as given, as ls does; "file/" stays not a directory', async () => {
      writeFileSync(join(device, 'motd'), 'welcome\n');
      chmodSync(join(device, 'motd'), 0o640);
      const path = join(device, 'motd');
      const listed = await svc(alice, ['ls', `${DEVICE}:${path}`, '--json']);
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([{ name: path, is_dir: false, size: 8, mode: 0o640, mtime: expect.any(Number), is_symlink: false }]);
      const human = await svc(alice, ['ls', `${DEVICE}:${path}`]);
      expect(human.stdout).toMatch(new RegExp(`^-rw-r----- +8 B +\\S+ +${path}$`, 'm'));
      const slash = await svc(alice, ['ls', `${DEVICE}:${path}/`]);
      expect(slash.code).toBe(2);
      expect(slash.stderr).toMatch(new RegExp(`^Error: Not a directory: ${path} \\(request [\\w-]+\\)\\n$`));
    });
  });

  describe('a device lost during an upload', () => {
    it('says the connection to the device was lost during the upload, not that the device is offline', async () => {
      const doomed = (await fleet.addDevice('safe-lost', { owner: 'alice', runtime: true })).runtime!;
      const big = join(local, 'big-upload.bin');
      execFileSync('truncate', ['-s', '4G', big]);
      const target = join(device, 'lost-upload');
      mkdirSync(target);
      const child = spawnSvc(alice, ['cp', big, `safe-lost:${join(target, 'big.bin')}`]);
      const result = collect(child, ['cp'], { timeoutMs: 120_000 });
      await eventually('the upload under way on the device', () => readdirSync(target).some((name) => statSync(join(target, name)).size > 0), { timeoutMs: 60_000 });
      doomed.kill('SIGKILL');
      const { code, stderr } = await result;
      expect(code).toBe(2);
      expect(stderr).toMatch(new RegExp(`^Error: Connection to device safe-lost lost during the upload of ${join(target, 'big.bin')} \\(request [\\w-]+\\)\\n$`));
      // Once it is gone, an upload that never started says it is offline, as before.
      writeFileSync(join(local, 'small.txt'), 'x');
      await eventually('safe-lost offline', async () => (await svc(alice, ['cp', join(local, 'small.txt'), `safe-lost:${join(target, 'small.txt')}`])).stderr.startsWith('Error: Device is offline'));
    }, 180_000);
  });

  describe('what a sync leaves alone', () => {
    const outside = join(dir, 'outside-secret');
    beforeAll(() => writeFileSync(outside, 'not for the sync'));

    it('names a link out of the root that a download sync skips (stderr), and lists it under --json', async () => {
      const source = join(device, 'with-links');
      mkdirSync(join(source, 'sub'), { recursive: true });
      writeFileSync(join(source, 'sub', 'real.txt'), 'real\n');
      symlinkSync(outside, join(source, 'escape'));
      symlinkSync('real.txt', join(source, 'sub', 'inside'));
      const dest = join(local, 'with-links');
      const human = await svc(alice, ['sync', `${DEVICE}:${source}`, dest]);
      expect(human.code).toBe(0);
      expect(human.stderr).toBe('Skipped escape: a symbolic link (sync copies regular files and directories only)\nSkipped sub/inside: a symbolic link (sync copies regular files and directories only)\n');
      expect(human.stdout).toBe('Copied 1 file, deleted 0 entries, 0 unchanged.\n');
      expect(existsSync(join(dest, 'escape'))).toBe(false);
      const json = await svc(alice, ['sync', `${DEVICE}:${source}`, dest, '--json']);
      expect(json).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(json.stdout)).toEqual({
        status: 'synced',
        dry_run: false,
        copy: [],
        delete: [],
        unchanged: 1,
        skipped: [{ path: 'escape', type: 'symbolic link' }, { path: 'sub/inside', type: 'symbolic link' }],
      });
    });

    it('names a local link an upload sync skips, and leaves a link in the destination as it was', async () => {
      const source = join(local, 'up-links');
      mkdirSync(source);
      writeFileSync(join(source, 'a.txt'), 'a');
      symlinkSync(outside, join(source, 'escape'));
      const dest = join(device, 'up-links');
      mkdirSync(dest);
      symlinkSync(outside, join(dest, 'theirs'));
      const result = await svc(alice, ['sync', source, `${DEVICE}:${dest}`, '--delete']);
      expect(result).toMatchObject({ code: 0, stderr: 'Skipped escape: a symbolic link (sync copies regular files and directories only)\n' });
      expect(lstatSync(join(dest, 'theirs')).isSymbolicLink()).toBe(true);
      expect(existsSync(join(dest, 'escape'))).toBe(false);
      expect(readFileSync(outside, 'utf8')).toBe('not for the sync');
    });

    it('sends the skipped entries only to a client that asks (an older svc would take them for files)', async () => {
      const root = join(device, 'with-links');
      const manifest = async (headers: Record<string, string>) => {
        const res = await fetch(`${fleet.server.url}/devices/${DEVICE}/files/manifest`, {
          method: 'POST',
          headers: { authorization: `Bearer ${fleet.user('alice').caller.token}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ path: root }),
        });
        expect(res.status).toBe(200);
        return (await res.text()).split('\n').filter(Boolean).map((line) => JSON.parse(line) as { path: string; skipped?: string });
      };
      expect((await manifest({})).map((entry) => entry.path)).toEqual(['sub', 'sub/real.txt']);
      expect((await manifest({ 'x-svc-list-skipped': '1' })).filter((entry) => entry.skipped).map((entry) => entry.path)).toEqual(['escape', 'sub/inside']);
    });
  });
});
