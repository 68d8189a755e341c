/**
 * What `svc cp` and `svc sync` write to, as cp and scp do (docs/cli.md, "cp and sync
 * destinations"): a symbolic link is written through to its target and survives, a FIFO or
 * device (/dev/stdout) is written in place, `-` is stdin or stdout, a link out of a sync root is
 * refused; on the CLI's machine and on the device alike. The real binary, server and runtime.
 */
import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { useFleet } from './fixtures/fleet';
import type { RuntimeProcess } from './fixtures/runtime-process';
import { CliHome, collect, spawnSvc, svc, SVC_BIN, SvcResult } from './fixtures/svc-cli';
import { eventually } from './fixtures/eventually';

const ALICE = 'alice@file-destinations.test';
const DEVICE = 'dest-1';

/** A process reading `fifo` to its end into `out` (the test's own thread pool stays free). */
function drainFifo(fifo: string, out: string): { child: ChildProcess; done: Promise<void> } {
  const child = spawn('sh', ['-c', 'cat "$1" > "$2"', 'sh', fifo, out], { stdio: 'ignore' });
  return { child, done: new Promise((resolve) => child.once('exit', () => resolve())) };
}

describe('cp and sync destinations (real binary, real runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-destinations-'));
  const device = join(dir, 'device');
  const local = join(dir, 'local');
  const content = `hello from the device ${randomBytes(4).toString('hex')}\n`;
  mkdirSync(device);
  mkdirSync(local);
  writeFileSync(join(device, 'source.txt'), content);
  const fleet = useFleet({ users: { alice: ALICE }, devices: { [DEVICE]: { owner: 'alice', runtime: true } } });
  let runtime: RuntimeProcess;
  let alice: CliHome;

  beforeAll(() => {
    runtime = fleet.device(DEVICE).runtime!;
    alice = fleet.user('alice').home;
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const ok = (result: SvcResult) => expect(result).toMatchObject({ code: 0, stderr: '' });

  describe('on the CLI side', () => {
    it('writes a download through a symbolic link into its target, and keeps the link', async () => {
      writeFileSync(join(local, 'target.conf'), 'old');
      symlinkSync('target.conf', join(local, 'link.conf'));
      ok(await svc(alice, ['cp', `${DEVICE}:${join(device, 'source.txt')}`, join(local, 'link.conf')]));
      expect(lstatSync(join(local, 'link.conf')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(local, 'link.conf'))).toBe('target.conf');
      expect(readFileSync(join(local, 'target.conf'), 'utf8')).toBe(content);
    });

    it('writes into a FIFO behind a link in place: the link and the FIFO stay, the reader gets the bytes', async () => {
      const fifo = join(local, 'pipe');
      execFileSync('mkfifo', [fifo]);
      symlinkSync(fifo, join(local, 'to-pipe'));
      const reader = drainFifo(fifo, join(local, 'from-pipe'));
      ok(await svc(alice, ['cp', `${DEVICE}:${join(device, 'source.txt')}`, join(local, 'to-pipe')]));
      await reader.done;
      expect(readFileSync(join(local, 'from-pipe'), 'utf8')).toBe(content);
      expect(lstatSync(join(local, 'to-pipe')).isSymbolicLink()).toBe(true);
      expect(statSync(fifo).isFIFO()).toBe(true);
    });

    it('prints the file for `svc cp dev:/file /dev/stdout` with stdout piped, and leaves /dev/stdout a link', async () => {
      const result = await svc(alice, ['cp', `${DEVICE}:${join(device, 'source.txt')}`, '/dev/stdout']);
      expect(result).toMatchObject({ code: 0, stdout: content, stderr: '' });
      expect(lstatSync('/dev/stdout').isSymbolicLink()).toBe(true);
      // Behind a shell's pipe, /dev/stdout leads to a FIFO: written in place as well.
      // (not execFileSync: the server runs in this process and must keep answering)
      const piped = await promisify(execFile)('sh', ['-c', '"$0" "$1" cp "$2" /dev/stdout | cat', process.execPath, SVC_BIN, `${DEVICE}:${join(device, 'source.txt')}`], { env: alice.env, cwd: alice.dir });
      expect(piped).toEqual({ stdout: content, stderr: '' });
      expect(lstatSync('/dev/stdout').isSymbolicLink()).toBe(true);
    });

    it('takes "-" as stdout for a download and as stdin for an upload', async () => {
      expect(await svc(alice, ['cp', `${DEVICE}:${join(device, 'source.txt')}`, '-'])).toMatchObject({ code: 0, stdout: content, stderr: '' });
      ok(await svc(alice, ['cp', '-', `${DEVICE}:${join(device, 'from-stdin.txt')}`], { input: 'piped in\n' }));
      expect(readFileSync(join(device, 'from-stdin.txt'), 'utf8')).toBe('piped in\n');
    });

    it('says the device was lost, not a local file error, when the device dies in mid-download', async () => {
      const lost = join(dir, 'lost');
      mkdirSync(lost);
      const doomed = (await fleet.addDevice('dest-lost', { owner: 'alice', runtime: true })).runtime!;
      const big = join(lost, 'big.bin');
      execFileSync('truncate', ['-s', '4G', big]); // sparse: read fast, copied slowly enough to be cut
      const copy = spawnSvc(alice, ['cp', `dest-lost:${big}`, join(lost, 'copy.bin')]);
      const result = collect(copy, ['cp'], { timeoutMs: 120_000 });
      await eventually('a partial temp file', () => tempFiles(lost).length > 0 && statSync(join(lost, tempFiles(lost)[0])).size > 0, { timeoutMs: 60_000 });
      doomed.kill('SIGKILL');
      const { code, stderr } = await result;
      expect(code).not.toBe(0);
      expect(stderr).toContain('Connection to device dest-lost lost during the download of');
      expect(stderr).not.toContain('ECONNRESET');
      expect(tempFiles(lost)).toEqual([]);
    }, 180_000);
  });

  describe('on the device side', () => {
    it('writes an upload through link.conf -> target.conf: the link stays, the target is updated', async () => {
      writeFileSync(join(device, 'target.conf'), 'old');
      symlinkSync('target.conf', join(device, 'link.conf'));
      writeFileSync(join(local, 'new.conf'), 'new settings\n');
      ok(await svc(alice, ['cp', join(local, 'new.conf'), `${DEVICE}:${join(device, 'link.conf')}`]));
      expect(lstatSync(join(device, 'link.conf')).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(device, 'target.conf'), 'utf8')).toBe('new settings\n');
    });

    it('writes an upload into a FIFO in place, and refuses one nobody reads at once', async () => {
      const fifo = join(device, 'upload-pipe');
      execFileSync('mkfifo', [fifo]);
      writeFileSync(join(local, 'to-fifo.txt'), 'into the pipe\n');
      const unread = await svc(alice, ['cp', join(local, 'to-fifo.txt'), `${DEVICE}:${fifo}`]);
      expect(unread.code).toBe(2);
      expect(unread.stderr).toContain('a FIFO needs a reader');
      const reader = drainFifo(fifo, join(device, 'from-upload-pipe'));
      // The reader opens the FIFO a moment after it starts: until then the copy is refused as above.
      let copied: SvcResult | undefined;
      await eventually('the copy into the fifo', async () => (copied = await svc(alice, ['cp', join(local, 'to-fifo.txt'), `${DEVICE}:${fifo}`])).code === 0, { timeoutMs: 60_000, intervalMs: 200 });
      ok(copied!);
      await reader.done;
      expect(readFileSync(join(device, 'from-upload-pipe'), 'utf8')).toBe('into the pipe\n');
      expect(statSync(fifo).isFIFO()).toBe(true);
    });

    it('refuses to download a FIFO, and four such requests leave file operations working', async () => {
      const fifos = [1, 2, 3, 4].map((n) => join(device, `fifo-${n}`));
      for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
      const reads = () => runtime.stderr.filter((line) => line.includes('"msg":"operation"') && line.includes('fs/read')).length;
      const before = reads();
      const refused = fifos.map((fifo, n) => svc(alice, ['cp', `${DEVICE}:${fifo}`, join(local, `fifo-copy-${n}`)], { timeoutMs: 90_000 }).catch((err: Error) => err));
      try {
        await eventually('four more reads', () => reads() >= before + 4, { timeoutMs: 60_000 });
        const copy = await svc(alice, ['cp', `${DEVICE}:${join(device, 'source.txt')}`, join(local, 'after-fifos.txt')], { timeoutMs: 60_000 });
        ok(copy);
        for (const result of await Promise.all(refused)) {
          expect(result).toMatchObject({ code: 2 });
          expect((result as SvcResult).stderr).toMatch(/Not a regular file: .*fifo-\d is a fifo/);
        }
      } finally {
        // Without the fix the reads would still hold the runtime's pool: writers let them end.
        for (const fifo of fifos) spawn('timeout', ['5', 'sh', '-c', 'exec 3>"$1"', 'sh', fifo], { stdio: 'ignore' }).unref();
      }
    }, 240_000);
  });

  describe('in a sync root', () => {
    it('refuses a destination link that leads out of the root, and writes nothing outside', async () => {
      const outside = join(dir, 'outside');
      mkdirSync(outside);
      writeFileSync(join(outside, 'secret'), 'keep me');
      const source = join(local, 'sync-src');
      const root = join(device, 'sync-dst');
      mkdirSync(source);
      mkdirSync(root);
      writeFileSync(join(source, 'escape.txt'), 'overwrite?');
      symlinkSync(join(outside, 'secret'), join(root, 'escape.txt'));
      const result = await svc(alice, ['sync', source, `${DEVICE}:${root}`]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('is outside');
      expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('keep me');
      expect(lstatSync(join(root, 'escape.txt')).isSymbolicLink()).toBe(true);
    });

    it('refuses, on the CLI side too, a local link that leads out of the sync root', async () => {
      const outside = join(dir, 'outside-local');
      mkdirSync(outside);
      writeFileSync(join(outside, 'secret'), 'keep me');
      const source = join(device, 'sync-src-3');
      const root = join(local, 'sync-dst-3');
      mkdirSync(source);
      mkdirSync(root);
      writeFileSync(join(source, 'escape.txt'), 'overwrite?');
      symlinkSync(join(outside, 'secret'), join(root, 'escape.txt'));
      const result = await svc(alice, ['sync', `${DEVICE}:${source}`, root]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('is outside');
      expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('keep me');
      expect(lstatSync(join(root, 'escape.txt')).isSymbolicLink()).toBe(true);
    });

    it('writes through a link that stays inside the root', async () => {
      const source = join(local, 'sync-src-2');
      const root = join(device, 'sync-dst-2');
      mkdirSync(source);
      mkdirSync(root);
      writeFileSync(join(source, 'current.txt'), 'synced');
      writeFileSync(join(root, 'real.txt'), 'old');
      symlinkSync('real.txt', join(root, 'current.txt'));
      ok(await svc(alice, ['sync', source, `${DEVICE}:${root}`]));
      expect(lstatSync(join(root, 'current.txt')).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(root, 'real.txt'), 'utf8')).toBe('synced');
    });
  });
});

function tempFiles(directory: string): string[] {
  return execFileSync('ls', ['-A', directory]).toString().split('\n').filter((name) => /\.svc-[0-9a-f]{12}\.tmp$/.test(name));
}
