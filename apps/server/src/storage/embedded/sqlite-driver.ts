import type BetterSqlite3 from 'better-sqlite3';

export type SqliteDriver = typeof BetterSqlite3;

/** The first Node major that better-sqlite3 13 (Node-API) runs on. */
const NODE_API_DRIVER_FROM_MAJOR = 22;

/**
 * The SQLite driver for this Node. better-sqlite3 13 is built on Node-API and ships prebuilt for
 * linux/darwin/win32 on x64 and arm64, but needs Node 22+ (on Node 20 it crashes opening a
 * database). Its predecessor 12.x wraps `node::ObjectWrap`, whose destructor aborts the process on
 * Node 24.19+ when a collected statement is finalized (`Assertion failed: (env) != nullptr`,
 * nodejs/node#65446): the server died mid-run on Node 24. So Node 22+ loads 13 and Node 20 loads 12,
 * installed as the optional alias `better-sqlite3-node20` and compiled from source at install.
 * Drop the alias once the project requires Node 22.
 */
export function loadSqliteDriver(nodeVersion = process.versions.node): SqliteDriver {
  const major = Number(nodeVersion.split('.')[0]);
  if (major >= NODE_API_DRIVER_FROM_MAJOR) return require('better-sqlite3') as SqliteDriver;
  try {
    return require('better-sqlite3-node20') as SqliteDriver;
  } catch (error) {
    throw new Error(
      `Node ${nodeVersion} needs the optional package better-sqlite3-node20 (better-sqlite3 12, compiled at install: ` +
        `python3, make and g++), which did not load: ${(error as Error).message}. Use Node 22 or 24, or install the build tools and run npm install again.`,
    );
  }
}
