/**
 * Reads the files a spec references (run-spec `files`, compose `env_file`), to send them inlined.
 * Only files inside the spec file's directory are read, symbolic links resolved: a spec file that
 * came from someone else must not be able to send `~/.ssh/id_ed25519` to a device.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DEPLOY_LIMITS } from '@svc/common';

export class ReferencedFileError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function inside(dir: string, target: string): boolean {
  const relative = path.relative(dir, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The content of `reference` (a path relative to `baseDir`), as UTF-8 text. */
export async function readReferencedFile(baseDir: string, reference: string): Promise<string> {
  if (reference === '' || reference.includes('\0')) throw new ReferencedFileError('is not a file path');
  if (path.isAbsolute(reference) || path.win32.isAbsolute(reference)) {
    throw new ReferencedFileError(`"${reference}" is absolute; give a path relative to the spec file's directory`);
  }
  const resolved = path.resolve(baseDir, reference);
  if (!inside(baseDir, resolved)) throw new ReferencedFileError(`"${reference}" is outside the spec file's directory`);
  let real: string;
  try {
    real = await fs.realpath(resolved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ReferencedFileError(`"${reference}" does not exist (looked for ${resolved})`);
    throw new ReferencedFileError(`"${reference}" cannot be read: ${(error as Error).message}`);
  }
  if (!inside(await fs.realpath(baseDir), real)) throw new ReferencedFileError(`"${reference}" links outside the spec file's directory`);
  const stat = await fs.stat(real);
  if (!stat.isFile()) throw new ReferencedFileError(`"${reference}" is not a regular file`);
  if (stat.size > DEPLOY_LIMITS.maxFileBytes) {
    throw new ReferencedFileError(`"${reference}" is ${stat.size} bytes, more than the ${DEPLOY_LIMITS.maxFileBytes} bytes a file may have`);
  }
  const bytes = await fs.readFile(real);
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ReferencedFileError(`"${reference}" is not UTF-8 text (files are sent as text)`);
  }
}
