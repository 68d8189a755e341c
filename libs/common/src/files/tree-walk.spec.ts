import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileExcludes } from './exclude-rules';
import { walkTree } from './tree-walk';

describe('walkTree (the listing sync compares)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'svc-walk-'));
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', 'file'), 'x');
    symlinkSync('/etc', join(root, 'out'));
    symlinkSync('sub/file', join(root, 'sub-link'));
    symlinkSync('sub', join(root, 'dir-link'));
    execFileSync('mkfifo', [join(root, 'pipe')]);
    writeFileSync(join(root, 'back\\slash'), 'x');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const walk = async (exclude: string[] = []) => {
    const entries = [];
    for await (const entry of walkTree(root, { exclude: compileExcludes(exclude) })) entries.push(entry);
    return entries.map(({ path, is_dir, skipped }) => ({ path, is_dir, ...(skipped ? { skipped } : {}) }));
  };

  it('lists links (not followed) and special files marked skipped; files and directories plain', async () => {
    expect(await walk()).toEqual([
      { path: 'dir-link', is_dir: false, skipped: 'symbolic link' },
      { path: 'out', is_dir: false, skipped: 'symbolic link' },
      { path: 'pipe', is_dir: false, skipped: 'fifo' },
      { path: 'sub', is_dir: true },
      { path: 'sub-link', is_dir: false, skipped: 'symbolic link' },
      { path: 'sub/file', is_dir: false },
    ]);
  });

  it('leaves excluded ones out as any other path', async () => {
    expect((await walk(['out', '*-link'])).map((entry) => entry.path)).toEqual(['pipe', 'sub', 'sub/file']);
  });
});
