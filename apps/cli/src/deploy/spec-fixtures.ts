/** Test helpers of the deploy specs: a temporary directory of spec files, and a job with every default. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Job } from '@svc/common';

export class SpecDir {
  readonly root = mkdtempSync(join(tmpdir(), 'svc-deploy-spec-'));

  /** Writes `files` (name → content) under the directory and answers the path of the first. */
  write(files: Record<string, string | Buffer>): string {
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(dirname(join(this.root, name)), { recursive: true });
      writeFileSync(join(this.root, name), content);
    }
    return join(this.root, Object.keys(files)[0]);
  }

  path(name: string): string {
    return join(this.root, name);
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A run-spec service job as normalization fills it in, with `over` on top. */
export function defaultJob(over: Partial<Job> = {}): Job {
  return {
    id: 'web',
    type: 'service',
    enabled: true,
    workdir: { kind: 'persistent' },
    files: {},
    env: {},
    steps: [{ name: 'serve', run: 'python3 -m http.server 8080' }],
    on_failure: { undo: 'none' },
    stop: { steps: [] },
    observe: {},
    restart: { policy: 'always', backoff: '1s', max_backoff: '5m' },
    source: 'runspec',
    ...over,
  };
}
