import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enableCompileCache } from './compile-cache';

describe('compile cache directory (bin/run.js, Node 22.1+)', () => {
  let dir: string;
  let enabled: string[];
  const uid = process.getuid!();
  const host = (env: Record<string, string | undefined>, enable: ((d: string) => unknown) | undefined = (d) => enabled.push(d)) => ({ env, enable, home: () => join(dir, 'home'), uid });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-compile-cache-'));
    enabled = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates XDG_CACHE_HOME/svc/node-compile-cache 0700 whatever the umask, and enables it there', () => {
    const old = process.umask(0);
    try {
      expect(enableCompileCache(host({ XDG_CACHE_HOME: join(dir, 'cache') }))).toBe(join(dir, 'cache/svc/node-compile-cache'));
    } finally {
      process.umask(old);
    }
    expect(enabled).toEqual([join(dir, 'cache/svc/node-compile-cache')]);
    for (const path of ['cache', 'cache/svc', 'cache/svc/node-compile-cache']) expect(statSync(join(dir, path)).mode & 0o777).toBe(0o700);
  });

  it('falls back to ~/.cache without XDG_CACHE_HOME', () => {
    expect(enableCompileCache(host({}))).toBe(join(dir, 'home/.cache/svc/node-compile-cache'));
  });

  it('does not use a directory that others can write, nor a link', () => {
    const shared = join(dir, 'shared/svc/node-compile-cache');
    mkdirSync(shared, { recursive: true });
    chmodSync(shared, 0o777);
    expect(enableCompileCache(host({ XDG_CACHE_HOME: join(dir, 'shared') }))).toBeUndefined();
    mkdirSync(join(dir, 'linked/svc'), { recursive: true });
    mkdirSync(join(dir, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'linked/svc/node-compile-cache'));
    expect(enableCompileCache(host({ XDG_CACHE_HOME: join(dir, 'linked') }))).toBeUndefined();
    expect(enabled).toEqual([]);
  });

  it('never throws: a file in the way, or Node refusing, only costs the cache', () => {
    writeFileSync(join(dir, 'file'), '');
    expect(enableCompileCache(host({ XDG_CACHE_HOME: join(dir, 'file') }))).toBeUndefined();
    expect(() => enableCompileCache(host({ XDG_CACHE_HOME: join(dir, 'ok') }, () => { throw new Error('no'); }))).not.toThrow();
  });

  it('does nothing on Node without enableCompileCache, or when NODE_COMPILE_CACHE / NODE_DISABLE_COMPILE_CACHE is set', () => {
    expect(enableCompileCache({ ...host({ XDG_CACHE_HOME: join(dir, 'a') }), enable: undefined })).toBeUndefined();
    expect(enableCompileCache(host({ XDG_CACHE_HOME: join(dir, 'b'), NODE_COMPILE_CACHE: join(dir, 'x') }))).toBeUndefined();
    expect(enableCompileCache(host({ XDG_CACHE_HOME: join(dir, 'c'), NODE_DISABLE_COMPILE_CACHE: '1' }))).toBeUndefined();
    expect(enabled).toEqual([]);
  });
});
