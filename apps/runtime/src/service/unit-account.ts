import { readFileSync, Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { configDirectory } from '@svc/common';

/** The account a unit runs as, from /etc/passwd and /etc/group. */
export interface Account {
  name: string;
  uid: number;
  home: string;
  /** Its primary group and every group that lists it as a member. */
  gids: number[];
}

/** `name`'s entry, or root's (uid 0) when the unit has no User=; undefined when /etc/passwd has none. */
export function lookupAccount(name?: string): Account | undefined {
  const entry = readTable('/etc/passwd').find((fields) => fields.length >= 7 && (name === undefined ? fields[2] === '0' : fields[0] === name));
  if (entry === undefined) return undefined;
  const [account, , uid, gid, , home] = entry;
  const memberOf = readTable('/etc/group')
    .filter((fields) => fields.length >= 4 && fields[3].split(',').includes(account))
    .map((fields) => Number(fields[2]));
  return { name: account, uid: Number(uid), home, gids: [Number(gid), ...memberOf] };
}

/**
 * The configuration directory of the unit's runtime: the unit's SVC_CONFIG_DIR, else that of its
 * account's home (systemd sets HOME for User=; Node takes root's from /etc/passwd without one).
 */
export function unitConfigDir(environment: Record<string, string>, account: Account | undefined): string | undefined {
  if (environment.SVC_CONFIG_DIR) return environment.SVC_CONFIG_DIR;
  return account === undefined ? undefined : configDirectory({ HOME: account.home });
}

/**
 * Why `account` could not create `dir` (with its missing parents) or write in it, or undefined when
 * it can: each existing directory on the way must be searchable, and the deepest existing one
 * writable, by the mode bits as the kernel applies them (owner, else group, else others). Root
 * passes; ACLs are not read (`enable --force` is for a directory they open).
 */
export function configDirProblem(dir: string, account: Account): string | undefined {
  if (account.uid === 0) return undefined;
  let existing = resolve(dir);
  let stats: Stats | undefined;
  while (stats === undefined) {
    try {
      stats = statSync(existing);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(existing) === existing) return `${existing}: ${(error as Error).message}`;
      existing = dirname(existing);
    }
  }
  if (!stats.isDirectory()) return `${existing} is not a directory`;
  for (let parent = dirname(existing); ; parent = dirname(parent)) {
    if (!permits(statSync(parent), account, SEARCH)) return `${account.name} may not enter ${parent}`;
    if (dirname(parent) === parent) break;
  }
  if (!permits(stats, account, WRITE | SEARCH)) return existing === resolve(dir) ? `${account.name} may not write in ${existing}` : `${account.name} may not create ${dir} (${existing} is not writable by it)`;
  return undefined;
}

const WRITE = 2;
const SEARCH = 1;

function permits(stats: Stats, account: Account, bits: number): boolean {
  const shift = stats.uid === account.uid ? 6 : account.gids.includes(stats.gid) ? 3 : 0;
  return ((stats.mode >> shift) & bits) === bits;
}

function readTable(path: string): string[][] {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .map((line) => line.split(':'));
  } catch {
    return [];
  }
}
