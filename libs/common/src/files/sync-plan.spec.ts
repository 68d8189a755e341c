import { parseFileLocation } from '../remote-path';
import { compileExcludes } from './exclude-rules';
import type { ManifestEntry } from './file-contract';
import { planSync } from './sync-plan';

const file = (path: string, size = 1, mtime = 1000): ManifestEntry => ({ path, is_dir: false, size, mode: 0o644, mtime });
const dir = (path: string): ManifestEntry => ({ path, is_dir: true, size: 0, mode: 0o755, mtime: 1 });

describe('planSync', () => {
  it('copies new and changed files, counts equal ones, and deletes only with delete', () => {
    const source = [file('a'), file('b', 2), dir('d'), file('d/c')];
    const dest = [file('a'), file('b', 3), file('old'), dir('gone'), file('gone/x')];
    expect(planSync(source, dest, { delete: false })).toEqual({ copy: ['b', 'd/c'], delete: [], unchanged: 1 });
    expect(planSync(source, dest, { delete: true })).toEqual({ copy: ['b', 'd/c'], delete: ['gone', 'old'], unchanged: 1 });
  });

  it('refuses a listing entry that leaves the root', () => {
    expect(() => planSync([file('../escape')], [], { delete: false })).toThrow('Refused the source listing');
    expect(() => planSync([], [file('/etc/passwd')], { delete: true })).toThrow('Refused the destination listing');
  });

  it('leaves entries marked skipped alone on both sides, and reports the source\'s', () => {
    const link = (path: string): ManifestEntry => ({ ...file(path), skipped: 'symbolic link' });
    const source = [file('a'), link('to-etc'), { ...file('pipe'), skipped: 'fifo' as const }];
    // The destination's link is neither deleted nor compared: "a" is copied (through it), "kept" stays.
    const dest = [link('a'), link('kept')];
    expect(planSync(source, dest, { delete: true })).toEqual({
      copy: ['a'],
      delete: [],
      unchanged: 0,
      skipped: [{ path: 'pipe', type: 'fifo' }, { path: 'to-etc', type: 'symbolic link' }],
    });
    expect(planSync([file('a')], dest, { delete: false })).not.toHaveProperty('skipped');
  });

  it('replaces a file by a directory only with delete', () => {
    expect(() => planSync([dir('x'), file('x/y')], [file('x')], { delete: false })).toThrow('sync with delete replaces it');
    expect(planSync([dir('x'), file('x/y')], [file('x')], { delete: true })).toEqual({ copy: ['x/y'], delete: ['x'], unchanged: 0 });
  });
});

describe('compileExcludes', () => {
  const excluded = compileExcludes(['*.log', 'build/out', 'cache/']);
  it.each([
    ['debug.log', false, true],
    ['deep/er/debug.log', false, true],
    ['build/out', true, true],
    ['src/build/out', true, false],
    ['cache', true, true],
    ['cache', false, false],
    ['main.ts', false, false],
  ])('%s (dir: %s) excluded: %s', (path, isDir, expected) => {
    expect(excluded(path, isDir)).toBe(expected);
  });

  it('refuses negation and empty patterns', () => {
    expect(() => compileExcludes(['!keep'])).toThrow('Negated exclude patterns are not supported');
    expect(() => compileExcludes([''])).toThrow('non-empty');
  });
});

describe('parseFileLocation', () => {
  it.each([
    ['pi:/etc/hostname', { kind: 'device', device: 'pi', path: '/etc/hostname' }],
    ['pi:', { kind: 'device', device: 'pi', path: '' }],
    ['[a:b]:/x', { kind: 'device', device: 'a:b', path: '/x' }],
    ['./a:b', { kind: 'local', path: './a:b' }],
    ['/x:y', { kind: 'local', path: '/x:y' }],
    ['C:\\data', { kind: 'local', path: 'C:\\data' }],
  ])('reads %s', (spec, expected) => {
    expect(parseFileLocation(spec, 'linux')).toEqual(expected);
  });

  it('refuses NUL characters', () => {
    expect(() => parseFileLocation('pi:/a\0b')).toThrow('NUL');
  });
});
