import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuntimeExit } from '../runtime-exit';
import { acquireRuntimeLock, LOCK_FILE_NAME } from './runtime-lock';

describe('runtime lock', () => {
  let dir: string;
  let holder: ChildProcess | undefined;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'svc-lock-'))));
  afterEach(() => {
    holder?.kill('SIGKILL');
    holder = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const bootId = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const writeLock = (pid: number, boot_id: string | null = bootId()) => writeFileSync(join(dir, LOCK_FILE_NAME), JSON.stringify({ pid, boot_id }));

  async function liveProcess(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    return child;
  }

  it('writes its pid, and release removes the file', () => {
    const lock = acquireRuntimeLock(dir);
    expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops a second runtime, naming the pid that holds the lock', async () => {
    holder = await liveProcess();
    writeLock(holder.pid!);
    let error: unknown;
    try {
      acquireRuntimeLock(dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RuntimeExit);
    expect(error).toMatchObject({ exitCode: 4, message: expect.stringContaining(`pid ${holder.pid}`) });
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8')).pid).toBe(holder.pid);
  });

  it('refuses a second lock in the same process', () => {
    const lock = acquireRuntimeLock(dir);
    expect(() => acquireRuntimeLock(dir)).toThrow(`pid ${process.pid}`);
    lock.release();
  });

  it('takes over the lock of a process that is gone (killed with SIGKILL)', async () => {
    const dead = await liveProcess();
    const pid = dead.pid!;
    dead.kill('SIGKILL');
    await new Promise((resolve) => dead.once('exit', resolve));
    writeLock(pid);
    const lock = acquireRuntimeLock(dir);
    expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock written before a reboot even if its pid is in use now', () => {
    writeLock(1, 'a-boot-before-this-one');
    const lock = acquireRuntimeLock(dir);
    expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('treats an unreadable lock file as stale', () => {
    writeFileSync(join(dir, LOCK_FILE_NAME), 'garbage');
    acquireRuntimeLock(dir).release();
  });

  it('does not remove a lock that another runtime took over', async () => {
    const lock = acquireRuntimeLock(dir);
    holder = await liveProcess();
    writeLock(holder.pid!);
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(true);
  });

  it('a configuration directory it cannot create is a configuration error (exit 2), which the unit does not restart on', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    let error: unknown;
    try {
      acquireRuntimeLock(join(file, 'svc'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RuntimeExit);
    expect(error).toMatchObject({ exitCode: 2, message: expect.stringMatching(/^Cannot use the configuration directory .*a-file\/svc: ENOTDIR.*set SVC_CONFIG_DIR/) });
  });
});
