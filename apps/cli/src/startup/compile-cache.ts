/**
 * Node 22.1+ keeps the compiled code of the modules svc loads on disk, so later starts skip most of
 * the compiling (docs/performance.md, "Exec"). Loaded by bin/run.js before anything else, so it
 * imports only Node built-ins.
 *
 * The cache is code this process will run, so it lives only where no one else can write: the
 * user's own cache directory (XDG_CACHE_HOME, else ~/.cache), in `svc/node-compile-cache`, created
 * 0700 in one step (mkdir with its mode, never a chmod after), and used only when it is a real
 * directory of this user that no group or other can write. Never a shared /tmp directory another
 * local user could fill. Anything that fails (no home, read-only disk, a file in the way) costs only
 * the speed-up: the command runs as without the cache.
 *
 * NODE_COMPILE_CACHE, when set, wins (Node reads it itself); NODE_DISABLE_COMPILE_CACHE=1 turns the
 * cache off. On Node 20 (no module.enableCompileCache) nothing is done.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

type Env = Record<string, string | undefined>;

export interface CompileCacheHost {
  env: Env;
  /** node:module's enableCompileCache, absent before Node 22.1. */
  enable?: (directory: string) => unknown;
  home: () => string;
  /** The process's uid (undefined where there is none, i.e. Windows). */
  uid?: number;
}

/** The directory svc's compile cache lives in, for this environment. */
export function compileCacheDirectory(env: Env, home: () => string): string {
  return join(env.XDG_CACHE_HOME || join(home(), '.cache'), 'svc', 'node-compile-cache');
}

/** Turns the compile cache on when Node has one; returns the directory used, or undefined. Never throws. */
export function enableCompileCache(host: CompileCacheHost): string | undefined {
  if (!host.enable || host.env.NODE_COMPILE_CACHE || host.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const directory = compileCacheDirectory(host.env, host.home);
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    if (!isPrivateDirectory(directory, host.uid)) return undefined;
    host.enable(directory);
    return directory;
  } catch {
    return undefined;
  }
}

/** A directory (not a link to one) owned by `uid` that only its owner can write. */
function isPrivateDirectory(path: string, uid: number | undefined): boolean {
  const stats = lstatSync(path);
  if (!stats.isDirectory()) return false;
  if (uid === undefined) return true;
  return stats.uid === uid && (stats.mode & 0o022) === 0;
}

export function enableCompileCacheForThisProcess(): string | undefined {
  const { enableCompileCache: enable } = require('node:module') as { enableCompileCache?: (directory: string) => unknown };
  return enableCompileCache({ env: process.env, enable, home: homedir, uid: process.getuid?.() });
}
