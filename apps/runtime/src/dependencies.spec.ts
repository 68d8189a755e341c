import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * What a small device must carry: node builtins and @svc/common (itself builtins plus picomatch,
 * for sync's exclude patterns), the QUIC carrier's library, and one optional native package, the
 * PTY library for shells, loaded on the first shell by handlers/shell-pty.ts alone (a device
 * without it runs everything else and refuses shells). Nothing else.
 */
const RUNTIME_SRC = resolve(__dirname);
const PTY_PACKAGE = '@lydell/node-pty';
const PTY_LOADER = join(RUNTIME_SRC, 'handlers', 'shell-pty.ts');
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

/** Modules a file loads at run time: type-only imports (libs/common's json-schema-to-ts) are erased by the compiler. */
function loadedImports(file: string): string[] {
  const typeOnly = new Set([...readFileSync(file, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)\s+type\s[^'"]*?from\s+'([^']+)'/g)].map((m) => m[1]));
  return imports(file).filter((specifier) => !typeOnly.has(specifier));
}

describe('runtime dependencies', () => {
  it.each([
    ['apps/runtime/src', RUNTIME_SRC, /^(\.|node:|@svc\/common$)/],
    ['libs/common/src', COMMON_SRC, /^(\.|node:|picomatch$)/],
  ])('%s imports only node builtins, @svc/common and its own files', (_name, dir, allowed) => {
    const offending = sources(dir)
      .filter((file) => file !== PTY_LOADER)
      .flatMap((file) => loadedImports(file).filter((specifier) => !allowed.test(specifier)).map((specifier) => `${file}: ${specifier}`));
    expect(offending).toEqual([]);
  });

  it(`names ${PTY_PACKAGE} in handlers/shell-pty.ts only, and imports only its types there`, () => {
    const naming = sources(RUNTIME_SRC).filter((file) => readFileSync(file, 'utf8').includes(`'${PTY_PACKAGE}'`));
    expect(naming).toEqual([PTY_LOADER]);
    expect(imports(PTY_LOADER).filter((specifier) => !/^(\.|node:|@svc\/common$)/.test(specifier))).toEqual([PTY_PACKAGE]);
    // The package itself is required on the first shell (a failure there refuses shells only).
    expect(readFileSync(PTY_LOADER, 'utf8')).toContain(`import type * as NodePty from '${PTY_PACKAGE}'`);
  });

  it('declares only @svc/common as a dependency, and the PTY library and the pinned QUIC bindings as optional', () => {
    const pkg = JSON.parse(readFileSync(join(RUNTIME_SRC, '..', 'package.json'), 'utf8'));
    expect(pkg.dependencies).toEqual({ '@svc/common': expect.any(String) });
    // The QUIC carrier: quinn's prebuilt binding per platform (@svc/common quinn/binding.ts), one exact version.
    const quic = Object.keys(pkg.optionalDependencies).filter((name) => name.startsWith('@chainsafe/libp2p-quic-'));
    expect(quic.length).toBeGreaterThan(0);
    for (const name of quic) expect(pkg.optionalDependencies[name]).toBe('1.1.8');
    expect(Object.keys(pkg.optionalDependencies).filter((name) => !quic.includes(name))).toEqual([PTY_PACKAGE]);
    expect(pkg.devDependencies).toBeUndefined();
  });
});
