import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** What a small device must carry: node builtins and @svc/common (itself builtins only), nothing else. */
const RUNTIME_SRC = resolve(__dirname);
const COMMON_SRC = resolve(__dirname, '../../../libs/common/src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'|require\('([^']+)'\)|import\('([^']+)'\)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

describe('runtime dependencies', () => {
  it.each([
    ['apps/runtime/src', RUNTIME_SRC, /^(\.|node:|@svc\/common$)/],
    ['libs/common/src', COMMON_SRC, /^(\.|node:)/],
  ])('%s imports only node builtins, @svc/common and its own files', (_name, dir, allowed) => {
    const offending = sources(dir).flatMap((file) => imports(file).filter((specifier) => !allowed.test(specifier)).map((specifier) => `${file}: ${specifier}`));
    expect(offending).toEqual([]);
  });

  it('declares @svc/common as its only dependency', () => {
    const pkg = JSON.parse(readFileSync(join(RUNTIME_SRC, '..', 'package.json'), 'utf8'));
    expect(pkg.dependencies).toEqual({ '@svc/common': expect.any(String) });
    expect(pkg.devDependencies).toBeUndefined();
  });
});
