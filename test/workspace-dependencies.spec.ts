/**
 * Each workspace declares what its shipped code imports, and the device-side and client-side
 * workspaces do not declare the server's stack (module boundaries: .dependency-cruiser.cjs). Scans the import specifiers of every non-test source
 * file (type-only imports are erased by the compiler and do not count; `*.test.ts(x)` are the
 * dashboard's Vitest specs, with their helpers in `test-support/`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
const WORKSPACES = ['libs/common', 'apps/server', 'apps/runtime', 'apps/cli', 'apps/web'];
const SERVER_ONLY = /^(@nestjs\/|mongoose$|mongodb|better-sqlite3(-node20)?$|oidc-provider$|class-validator$|class-transformer$|passport|express$|jwks-rsa$)/;
/** Matched against the path inside the repository: a checkout under a folder named `contract/` is not a test. */
const TEST_FILE = /\.(spec|contract|e2e-spec|test)\.tsx?$|\/(contract|test-support)\//;

function sources(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !TEST_FILE.test(relative(ROOT, path)) ? [path] : [];
  });
}

/** Package names a file loads at run time: `import x from`, `export … from`, `require()`, `import()`. */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]),
    ...[...text.matchAll(/^\s*import\s+'([^']+)'/gm)].map((m) => m[1]),
    ...[...text.matchAll(/\brequire\('([^']+)'\)|\bimport\('([^']+)'\)/g)].map((m) => m[1] ?? m[2]),
  ];
  // `virtual:` modules are written by the dashboard's own build (apps/web/build), not packages.
  return specifiers.filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !s.startsWith('virtual:') && !builtinModules.includes(s)).map(packageName);
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function manifest(workspace: string): { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; devDependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(ROOT, workspace, 'package.json'), 'utf8'));
}

describe('workspace dependencies', () => {
  it.each(WORKSPACES)('%s declares every package its shipped code imports', (workspace) => {
    // Optional ones count: the code that loads them handles their absence (the QUIC binding, Node 20's SQLite driver).
    const { dependencies = {}, optionalDependencies = {} } = manifest(workspace);
    const declared = new Set([...Object.keys(dependencies), ...Object.keys(optionalDependencies)]);
    const missing = sources(join(ROOT, workspace, 'src')).flatMap((file) =>
      runtimeImports(file)
        .filter((name) => !declared.has(name))
        .map((name) => `${file.slice(ROOT.length + 1)}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  // Importing the server stack is refused by `npm run lint` (no-server-stack-outside-server in .dependency-cruiser.cjs).
  it.each(['apps/runtime', 'apps/cli', 'libs/common', 'apps/web'])('%s does not declare the server stack', (workspace) => {
    const declared = Object.keys(manifest(workspace).dependencies ?? {}).filter((name) => SERVER_ONLY.test(name));
    expect(declared).toEqual([]);
  });

  it('sees the imports it checks (the scan is not vacuous)', () => {
    const server = new Set(sources(join(ROOT, 'apps/server/src')).flatMap(runtimeImports));
    expect([...server]).toEqual(expect.arrayContaining(['@nestjs/core', 'better-sqlite3', 'oidc-provider', 'selfsigned', '@svc/common']));
  });

  it('keeps only development tools in the root manifest', () => {
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(root.dependencies ?? {}).toEqual({});
  });

  it('points the server package at the entry the build produces', () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'apps/server/package.json'), 'utf8')).main).toBe('dist/main.js');
    expect(readFileSync(join(ROOT, 'apps/server/tsconfig.json'), 'utf8')).toMatch(/"outDir":\s*"dist"/);
    expect(sources(join(ROOT, 'apps/server/src')).some((f) => f.endsWith('apps/server/src/main.ts'))).toBe(true);
  });
});
