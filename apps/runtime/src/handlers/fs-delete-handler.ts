import { rm, stat } from 'node:fs/promises';
import { fileSystemError, FsDeleteResult, joinRelative, requireInside } from '@svc/common';
import type { StreamContext } from '../tunnel/stream-router';
import { parseDeleteArgs } from './fs-args';
import { respondJson } from './fs-stream';
import type { OperationStream } from '../tunnel/operation-stream';

/**
 * `/v1/fs/delete {root, paths}` (sync's `delete`): removes each path, relative to `root`, with
 * what is below it. Every path is checked before anything is removed: no absolute paths, no `..`,
 * and nothing reached through a symbolic link that leads out of the root (a link itself is
 * removed, never followed). Paths already gone are skipped; the answer is `{deleted}`.
 */
export async function handleFsDelete(stream: OperationStream, rawArgs: Record<string, unknown>, context: StreamContext): Promise<void> {
  const args = parseDeleteArgs(rawArgs);
  try {
    if (!(await stat(args.root)).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
  } catch (err) {
    throw fileSystemError(err, args.root);
  }
  const targets = args.paths.map((rel) => joinRelative(args.root, rel));
  for (const target of targets) await requireInside(args.root, target);
  let deleted = 0;
  for (const target of targets) {
    try {
      await rm(target, { recursive: true });
      deleted += 1;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw fileSystemError(err, target);
    }
  }
  context.log.info('files deleted', { root: args.root, deleted });
  const result: FsDeleteResult = { deleted };
  await respondJson(stream, result);
}
