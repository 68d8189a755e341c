import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { Job } from '@svc/common';

/** Job files are readable by the job's containers (bind mounts); the default workdirs themselves are 0700. */
const FILE_MODE = 0o644;
const DIR_MODE = 0o700;

/** Where the runtime keeps a deployment's job directories, under its data directory. */
export function persistentWorkdir(root: string, jobId: string): string {
  return join(root, 'jobs', jobId);
}

function ephemeralBase(root: string): string {
  return join(root, 'ephemeral');
}

/**
 * The directory a job runs in, with its `files` written. `persistent`: `<root>/jobs/<id>` (or
 * `workdir.path`), kept across starts. `ephemeral`: a fresh directory for each start, created
 * under `<root>/ephemeral` (or inside `workdir.path`, never the path itself, so removing it
 * can never remove a directory the runtime did not create).
 */
export async function prepareWorkdir(root: string, job: Job): Promise<string> {
  let path: string;
  if (job.workdir.kind === 'persistent') {
    path = job.workdir.path ?? persistentWorkdir(root, job.id);
    await mkdir(path, { recursive: true, mode: DIR_MODE });
  } else {
    const base = job.workdir.path ?? ephemeralBase(root);
    await mkdir(base, { recursive: true, mode: DIR_MODE });
    path = await mkdtemp(join(base, `${job.id}-`));
  }
  await writeJobFiles(path, job.files);
  return path;
}

/** Removes an ephemeral workdir at stop; a persistent one stays. */
export async function releaseWorkdir(job: Job, path: string | undefined): Promise<void> {
  if (path === undefined || job.workdir.kind !== 'ephemeral') return;
  await rm(path, { recursive: true, force: true });
}

/** Ephemeral directories left by a runtime that was killed: nothing runs in them any more at start-up. */
export async function removeStaleEphemeralWorkdirs(root: string): Promise<void> {
  const base = ephemeralBase(root);
  const entries = await readdir(base).catch(() => [] as string[]);
  await Promise.all(entries.map((entry) => rm(join(base, entry), { recursive: true, force: true })));
}

/** Writes `name → content` relative to `dir`; refuses absolute names and any `..` (the server checks too). */
export async function writeJobFiles(dir: string, files: Record<string, string>): Promise<void> {
  const root = resolve(dir);
  for (const [name, content] of Object.entries(files)) {
    const target = resolve(root, name);
    if (name === '' || isAbsolute(name) || name.split(/[\\/]/).includes('..') || !target.startsWith(root + sep)) {
      throw new Error(`file name ${JSON.stringify(name)} must be a relative path inside the workdir`);
    }
    await mkdir(dirname(target), { recursive: true, mode: DIR_MODE });
    await writeFile(target, content, { mode: FILE_MODE });
    await chmod(target, FILE_MODE);
  }
}
