/**
 * `npm run lint` (dependency-cruiser with .dependency-cruiser.cjs) fails on each kind of boundary
 * violation: cruises a small tree written here that breaks every rule once, plus one that breaks none.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');

/** One `error <rule>: <from> → <to>` line of the lint's output (the `err` reporter npm run lint uses). */
interface Violation {
  rule: string;
  from: string;
  to: string;
}

function parse(output: string): Violation[] {
  return [...output.matchAll(/^\s*error ([a-z-]+): (\S+) →\s*(\S+)/gm)].map(([, rule, from, to]) => ({ rule, from, to }));
}

function cruise(files: Record<string, string>): { exitCode: number; violations: Violation[] } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-boundaries-'));
  try {
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'node16', moduleResolution: 'node16', strict: true } }));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const args = [join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), '--config', join(ROOT, '.dependency-cruiser.cjs'), 'apps'];
    try {
      return { exitCode: 0, violations: parse(execFileSync(process.execPath, args, { cwd: dir, encoding: 'utf8' })) };
    } catch (err) {
      const failed = err as { status: number; stdout: string };
      return { exitCode: failed.status, violations: parse(failed.stdout) };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rules = (violations: Violation[]) => [...new Set(violations.map((v) => v.rule))].sort();

describe('module boundaries lint', () => {
  it('fails on folder cycles, file cycles, a foreign repository, a feature import in the tunnel, and the server stack or another app in the runtime', () => {
    const { exitCode, violations } = cruise({
      // auth → users → auth: a folder cycle (and a file cycle)
      'apps/server/src/auth/guard.ts': "import { findUser } from '../users/users.service';\nexport const guard = () => findUser();\n",
      'apps/server/src/users/users.service.ts': "import { guard } from '../auth/guard';\nexport const findUser = () => guard;\n",
      // orgs reaches into the devices feature's repository
      'apps/server/src/devices/devices.repository.ts': 'export class DevicesRepository {}\n',
      'apps/server/src/orgs/orgs.service.ts': "import { DevicesRepository } from '../devices/devices.repository';\nexport const repo = DevicesRepository;\n",
      // the tunnel imports a feature
      'apps/server/src/relay/relay.service.ts': "import { repo } from '../orgs/orgs.service';\nexport const relay = repo;\n",
      // the runtime loads the server stack and a server file
      'node_modules/@nestjs/common/package.json': '{"name": "@nestjs/common", "main": "index.js"}',
      'node_modules/@nestjs/common/index.js': 'exports.Injectable = () => undefined;\n',
      'apps/runtime/src/daemon.ts': "import { Injectable } from '@nestjs/common';\nimport { relay } from '../../server/src/relay/relay.service';\nexport const daemon = [Injectable, relay];\n",
    });
    expect(exitCode).not.toBe(0);
    expect(rules(violations)).toEqual(['no-folder-cycles', 'no-foreign-repository', 'no-module-cycles', 'no-server-stack-outside-server', 'tunnel-imports-no-feature', 'workspace-boundaries']);
    expect(violations.find((v) => v.rule === 'no-foreign-repository')).toMatchObject({ from: 'apps/server/src/orgs/orgs.service.ts', to: 'apps/server/src/devices/devices.repository.ts' });
  });

  it('passes a tree whose features depend one way, with the tunnel behind a port', () => {
    const { exitCode, violations } = cruise({
      'apps/server/src/relay/tunnel-ports.ts': 'export abstract class TunnelCredentials {}\n',
      'apps/server/src/devices/devices.repository.ts': 'export class DevicesRepository {}\n',
      'apps/server/src/devices/credentials.ts': "import { TunnelCredentials } from '../relay/tunnel-ports';\nimport { DevicesRepository } from './devices.repository';\nexport class Credentials extends TunnelCredentials { repo = DevicesRepository; }\n",
      'apps/runtime/src/daemon.ts': "import { join } from 'node:path';\nexport const daemon = join;\n",
    });
    expect(violations).toEqual([]);
    expect(exitCode).toBe(0);
  });
});

/**
 * A global module's providers are injectable everywhere without an import, which hides who depends
 * on what: a feature imports the modules it uses. Only the configuration (and the clock) is global.
 * The replicas' ports come from ReplicasModule, which each module that takes one imports (null
 * without NATS_URL); relay/ gets them through TunnelStateModule.withPorts.
 */
describe('global modules', () => {
  const GLOBAL_ALLOWED = ['apps/server/src/config/config.module.ts'];

  function sources(dir: string): string[] {
    return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return sources(path);
      return entry.name.endsWith('.ts') && !/\.(spec|e2e-spec)\.ts$/.test(entry.name) ? [path] : [];
    });
  }

  it('are only those allowed: @Global() or a dynamic module with global: true', () => {
    const global = sources('apps/server/src').filter((path) => /@Global\(\)|\bglobal:\s*true\b/.test(readFileSync(join(ROOT, path), 'utf8')));
    expect(global.sort()).toEqual(GLOBAL_ALLOWED);
  });
});
