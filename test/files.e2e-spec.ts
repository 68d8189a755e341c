/**
 * Device files end to end: the CLI's SDK (DeviceFiles) → the REST file routes → the relay → a real
 * runtime process, whose "device" file system is a temp directory on this machine (so the test
 * checks the device side directly). Real tokens, real streaming, no mocks.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, chmodSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { DeviceFiles } from '../apps/cli/src/sdk/device-files';
import type { Caller } from './fixtures/api-client';
import { expectRefused } from './fixtures/expect-error';
import { sha256OfFile, writeDeterministicFile } from './fixtures/large-files';
import { useFleet } from './fixtures/fleet';
import { defaultCarrier, RuntimeProcess } from './fixtures/runtime-process';
import type { TestServer } from './fixtures/test-server';

const ALICE = 'alice@files.test';
const BIG_BYTES = Number(process.env.FILES_BIG_MIB ?? 101) * 1024 * 1024;
const MTIME = new Date('2024-03-04T05:06:07.000Z');

function tempFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.includes('.svc-'));
}

describe('device files (real runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-files-'));
  const device = join(dir, 'device');
  const local = join(dir, 'local');
  mkdirSync(device);
  mkdirSync(local);
  let files: DeviceFiles;
  // Declared before the fleet, so that it runs first: the client closes before the server.
  afterAll(() => {
    files?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const fleet = useFleet({
    carrier: (process.env.FILES_TRANSPORT as 'tcp' | 'quic' | undefined) ?? defaultCarrier(),
    users: { alice: ALICE },
    devices: { 'fs-1': { owner: 'alice', shares: { 'viewer@files.test': 'viewer' }, runtime: true }, 'fs-off': { owner: 'alice' } },
  });
  let server: TestServer;
  let alice: Caller;
  let runtime: RuntimeProcess;

  beforeAll(() => {
    server = fleet.server;
    alice = fleet.user('alice').caller;
    runtime = fleet.device('fs-1').runtime!;
    files = filesFor(alice);
  });

  function filesFor(caller: Caller): DeviceFiles {
    return new DeviceFiles({ serverUrl: server.url, token: () => caller.token! });
  }

  it('lists a directory with device_ls', async () => {
    mkdirSync(join(device, 'ls/sub'), { recursive: true });
    writeFileSync(join(device, 'ls/b.txt'), 'bee');
    const entries = await files.ls(`fs-1:${join(device, 'ls')}`);
    expect(entries.map(({ name, is_dir, size }) => ({ name, is_dir, size }))).toEqual([
      { name: 'b.txt', is_dir: false, size: 3 },
      { name: 'sub', is_dir: true, size: 0 },
    ]);
  });

  it(`copies a ${BIG_BYTES / 1024 / 1024} MiB file up and back, byte for byte, keeping mode and mtime`, async () => {
    const original = join(local, 'big.bin');
    const sha256 = await writeDeterministicFile(original, BIG_BYTES);
    chmodSync(original, 0o640);
    utimesSync(original, MTIME, MTIME);

    await expect(files.cp(original, `fs-1:${device}`)).resolves.toEqual({ status: 'copied' });
    const onDevice = join(device, 'big.bin');
    expect(await sha256OfFile(onDevice)).toBe(sha256);
    expect(statSync(onDevice).mode & 0o777).toBe(0o640);
    expect(statSync(onDevice).mtimeMs).toBe(MTIME.getTime());

    const back = join(local, 'back/big.bin');
    await expect(files.cp(`fs-1:${onDevice}`, back)).resolves.toEqual({ status: 'copied' });
    expect(await sha256OfFile(back)).toBe(sha256);
    expect(statSync(back).mode & 0o777).toBe(0o640);
    expect(statSync(back).mtimeMs).toBe(MTIME.getTime());
    expect([...tempFiles(device), ...tempFiles(join(local, 'back'))]).toEqual([]);
    rmSync(original);
    rmSync(back);
    rmSync(onDevice);
  });

  it('leaves the old file intact and no temp file when an upload is cut off', async () => {
    const target = join(device, 'keep.txt');
    writeFileSync(target, 'old content');
    const logged = runtime.stderr.length;
    await new Promise<void>((resolve) => {
      const req = request(`${server.url}/devices/fs-1/files/content?path=${encodeURIComponent(target)}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/octet-stream', 'x-svc-size': String(8 * 1024 * 1024), trailer: 'x-svc-sha256' },
      });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(1024 * 1024, 1), () => setImmediate(() => req.destroy()));
      req.on('close', () => resolve());
    });
    await runtime.waitForLog('file write aborted', logged);
    expect(readFileSync(target, 'utf8')).toBe('old content');
    expect(tempFiles(device)).toEqual([]);
  });

  it('audits an upload into a directory under a name with the path it writes', async () => {
    mkdirSync(join(device, 'into'));
    const body = 'okay';
    const res = await fetch(`${server.url}/devices/fs-1/files/content?path=${encodeURIComponent(join(device, 'into'))}&name=ok.txt`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/octet-stream', 'x-svc-size': '4', 'x-svc-sha256': createHash('sha256').update(body).digest('hex') },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ path: join(device, 'into/ok.txt'), size: 4 });
    const audit = await fleet.user('alice').route('device_audit_logs.one', { device: 'fs-1', max: 1000 });
    const written = (audit.logs as { action: string; details: string }[]).filter((e) => e.action === 'device.file_written' && e.details.includes('/into'));
    expect(written).toEqual([expect.objectContaining({ details: expect.stringMatching(new RegExp(`^write ${join(device, 'into/ok.txt')} \\(4 bytes`)) })]);
  });

  describe('device_sync', () => {
    const tree = () => join(local, 'tree');
    const remote = () => join(device, 'synced');
    const snapshot = (root: string) => execFileSync('find', [root, '-printf', '%P %s %m %T@\n']).toString().split('\n').sort();

    beforeAll(() => {
      mkdirSync(join(tree(), 'sub/deep'), { recursive: true });
      mkdirSync(join(tree(), 'node_modules/x'), { recursive: true });
      writeFileSync(join(tree(), 'a.txt'), 'alpha');
      writeFileSync(join(tree(), 'sub/deep/b.txt'), 'beta');
      writeFileSync(join(tree(), 'debug.log'), 'log');
      writeFileSync(join(tree(), 'node_modules/x/index.js'), 'x');
      mkdirSync(remote());
      writeFileSync(join(remote(), 'stale.txt'), 'stale');
      writeFileSync(join(remote(), 'kept.log'), 'excluded: never deleted');
    });

    const options = { delete: true, exclude: ['*.log', 'node_modules/'] };

    it('reports the plan and changes nothing with dry_run', async () => {
      const before = snapshot(remote());
      const report = await files.sync(tree(), `fs-1:${remote()}`, { ...options, dry_run: true });
      expect(report).toEqual({ status: 'synced', dry_run: true, copy: ['a.txt', 'sub/deep/b.txt'], delete: ['stale.txt'], unchanged: 0 });
      expect(snapshot(remote())).toEqual(before);
    });

    it('copies what differs, deletes what the source lacks, and leaves excluded paths alone', async () => {
      const report = await files.sync(tree(), `fs-1:${remote()}`, options);
      expect(report).toMatchObject({ dry_run: false, copy: ['a.txt', 'sub/deep/b.txt'], delete: ['stale.txt'] });
      expect(readFileSync(join(remote(), 'sub/deep/b.txt'), 'utf8')).toBe('beta');
      expect(existsSync(join(remote(), 'stale.txt'))).toBe(false);
      expect(readFileSync(join(remote(), 'kept.log'), 'utf8')).toBe('excluded: never deleted');
      expect(existsSync(join(remote(), 'node_modules'))).toBe(false);
      expect(existsSync(join(remote(), 'debug.log'))).toBe(false);
      // Sizes and mtimes were kept, so a second sync finds nothing to do.
      expect(await files.sync(tree(), `fs-1:${remote()}`, options)).toMatchObject({ copy: [], delete: [], unchanged: 2 });

      const audit = await fleet.user('alice').route('device_audit_logs.one', { device: 'fs-1', max: 1000 });
      const synced = (audit.logs as { action: string; details: string }[]).filter((e) => e.action === 'device.files_synced');
      expect(synced).toEqual([expect.objectContaining({ details: `sync of ${remote()}: 2 written (9 bytes), 1 deleted` })]);
      // Each deletion is recorded when it is asked, naming its paths, not only counted in the summary.
      const deleted = (audit.logs as { action: string; details: string }[]).filter((e) => e.action === 'device.files_deleted');
      expect(deleted).toEqual([expect.objectContaining({ details: `delete in ${remote()}: stale.txt` })]);
    });

    it('records the paths of a long deletion as far as an audit entry holds, then how many more', async () => {
      const paths = Array.from({ length: 300 }, (_, i) => `gone/file-${String(i).padStart(3, '0')}.txt`);
      await fleet.user('alice').route('device_sync.delete', { device: 'fs-1', root: remote(), paths, sync: 'bounded-01' });
      const audit = await fleet.user('alice').route('device_audit_logs.one', { device: 'fs-1', max: 1000 });
      const [entry] = (audit.logs as { action: string; details: string }[]).filter((e) => e.action === 'device.files_deleted' && e.details.includes('gone/'));
      expect(entry.details.length).toBeLessThanOrEqual(500);
      const [, listed, more] = /^delete in .+?: (.+) and (\d+) more$/.exec(entry.details)!;
      expect(listed.split(', ')).toEqual(paths.slice(0, 300 - Number(more)));
    });

    it('syncs from the device into a local directory that does not exist yet', async () => {
      const copy = join(local, 'from-device');
      const report = await files.sync(`fs-1:${remote()}`, copy, { exclude: ['kept.log'] });
      expect(report).toMatchObject({ copy: ['a.txt', 'sub/deep/b.txt'], unchanged: 0 });
      expect(readFileSync(join(copy, 'a.txt'), 'utf8')).toBe('alpha');
      expect(Math.round(statSync(join(copy, 'sub/deep/b.txt')).mtimeMs)).toBe(Math.round(statSync(join(tree(), 'sub/deep/b.txt')).mtimeMs));
      expect(existsSync(join(copy, 'kept.log'))).toBe(false);
    });
  });

  describe('errors', () => {
    async function failure(work: Promise<unknown>): Promise<Record<string, unknown>> {
      const error = await work.then(() => undefined, (err: unknown) => err);
      expect(error).toBeInstanceOf(Error);
      return error as Record<string, unknown>;
    }

    it('answers NOT_FOUND (404) for a missing file', async () => {
      const error = await failure(files.cp(`fs-1:${join(device, 'nope.txt')}`, join(local, 'nope.txt')));
      expect(error).toMatchObject({ code: 'NOT_FOUND', statusCode: 404, message: `No such file or directory: ${join(device, 'nope.txt')}` });
      expect(existsSync(join(local, 'nope.txt'))).toBe(false);
    });

    it('answers INVALID_INPUT (400) when the route lists a file; device_ls (the SDK) lists that file alone, as ls', async () => {
      const path = join(device, 'plain.txt');
      writeFileSync(path, 'x');
      await expectRefused(fleet.user('alice').route('device_ls.list', { device: 'fs-1', path }), 400, 'INVALID_INPUT', /Not a directory/);
      expect(await files.ls(`fs-1:${path}`)).toEqual([expect.objectContaining({ name: path, is_dir: false, size: 1 })]);
    });

    it('answers FORBIDDEN (403) where the device refuses the write', async () => {
      writeFileSync(join(local, 'small.txt'), 'x');
      const error = await failure(files.cp(join(local, 'small.txt'), 'fs-1:/sys/svc-files-test.txt'));
      expect(error).toMatchObject({ code: 'FORBIDDEN', statusCode: 403, message: expect.stringMatching(/Permission denied|Read-only/) });
    });

    it('answers INVALID_INPUT (400) for a NUL in the path', async () => {
      await expectRefused(fleet.user('alice').route('device_ls.list', { device: 'fs-1', path: '/tmp/a\0b' }), 400, 'INVALID_INPUT');
    });

    it('answers INVALID_INPUT (400) for a missing path', async () => {
      // Raw: the SDK never sends a request without a required parameter.
      const res = await server.api.get('/devices/fs-1/files', alice);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
    });

    it('refuses to delete outside the sync root', async () => {
      await expectRefused(fleet.user('alice').route('device_sync.delete', { device: 'fs-1', root: device, paths: ['../escape'], sync: 'abcdefgh12' }), 400, 'INVALID_INPUT');
    });

    it('refuses a download that leaves its sync root', async () => {
      const download = fleet.user('alice').route('device_cp.download', { device: 'fs-1', path: join(device, 'synced/../plain.txt'), within: join(device, 'synced') });
      await expectRefused(download, 403, 'FORBIDDEN');
    });

    it.each([
      ['a viewer', 'viewer@files.test', 'fs-1', 403, 'FORBIDDEN'],
      ['a stranger', 'stranger@files.test', 'fs-1', 404, 'DEVICE_NOT_FOUND'],
      ['the owner of an offline device', ALICE, 'fs-off', 503, 'DEVICE_OFFLINE'],
    ])('answers %s with %s', async (_name, email, ref, statusCode, code) => {
      const caller = filesFor(await server.login(email));
      try {
        expect(await failure(caller.ls(`${ref}:/`))).toMatchObject({ code, statusCode, requestId: expect.any(String) });
        writeFileSync(join(local, 'up.txt'), 'x');
        expect(await failure(caller.cp(join(local, 'up.txt'), `${ref}:/tmp/never.txt`))).toMatchObject({ code, statusCode });
      } finally {
        caller.close();
      }
    });

    it('answers INSUFFICIENT_STORAGE (507) when the device disk is full, keeping nothing', async () => {
      const full = join(device, 'full');
      mkdirSync(full);
      // A real full disk: a 1 MiB tmpfs (the tests run as root, here and in CI).
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', full], { stdio: 'ignore' });
      try {
        await writeDeterministicFile(join(local, 'two-mib.bin'), 2 * 1024 * 1024);
        const error = await failure(files.cp(join(local, 'two-mib.bin'), `fs-1:${full}/`));
        expect(error).toMatchObject({ code: 'INSUFFICIENT_STORAGE', statusCode: 507 });
        expect(readdirSync(full)).toEqual([]);
      } finally {
        execFileSync('umount', [full]);
      }
    });
  });
});
