import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveWriteDestination } from './write-destination';

describe('resolveWriteDestination (what cp and sync write to)', () => {
  let dir: string;
  const at = (name: string) => join(dir, name);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-destination-'));
    writeFileSync(at('file'), 'x');
    mkdirSync(at('root'));
    writeFileSync(at('root/inside'), 'x');
    mkdirSync(at('dir'));
    execFileSync('mkfifo', [at('fifo')]);
    symlinkSync('file', at('link'));
    symlinkSync('link', at('link-to-link'));
    symlinkSync('missing', at('dangling'));
    symlinkSync('fifo', at('link-to-fifo'));
    symlinkSync('self', at('self'));
    symlinkSync('inside', at('root/link-inside'));
    symlinkSync('../file', at('root/link-out'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['a regular file', 'file', { kind: 'file', path: 'file' }],
    ['a new file', 'new', { kind: 'file', path: 'new' }],
    ['a link: its target', 'link', { kind: 'file', path: 'file' }],
    ['a chain of links: the last target', 'link-to-link', { kind: 'file', path: 'file' }],
    ['a dangling link: the missing target', 'dangling', { kind: 'file', path: 'missing' }],
    ['a FIFO: in place', 'fifo', { kind: 'special', path: 'fifo', type: 'fifo' }],
    ['a link to a FIFO: the FIFO, in place', 'link-to-fifo', { kind: 'special', path: 'fifo', type: 'fifo' }],
  ])('%s', async (_what, name, expected) => {
    const result = await resolveWriteDestination(at(name));
    expect(result).toEqual({ ...expected, path: at(expected.path) });
  });

  it('writes /dev/null in place', async () => {
    expect(await resolveWriteDestination('/dev/null')).toEqual({ kind: 'special', path: '/dev/null', type: 'character device' });
  });

  it('refuses a directory and a link loop', async () => {
    await expect(resolveWriteDestination(at('dir'))).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('Is a directory') });
    await expect(resolveWriteDestination(at('self'))).rejects.toMatchObject({ message: expect.stringContaining('Too many levels of symbolic links') });
  });

  it('within a root: follows a link that stays inside, refuses one that leads out', async () => {
    expect(await resolveWriteDestination(at('root/link-inside'), { within: at('root') })).toEqual({ kind: 'file', path: at('root/inside') });
    await expect(resolveWriteDestination(at('root/link-out'), { within: at('root') })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
