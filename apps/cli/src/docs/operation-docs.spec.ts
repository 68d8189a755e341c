import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXTENSION_OPERATIONS, isTool, OPERATIONS } from '@svc/common/operations';
import { withRegions } from './generated-region';
import { CLI_DOC_REGIONS, CommandManifest, commandUsage, MCP_DOC_REGIONS, renderCommandTable, renderReadOnlyList, renderToolTable } from './operation-docs';

const ROOT = join(__dirname, '..', '..', '..', '..');
const doc = (name: string) => readFileSync(join(ROOT, 'docs', name), 'utf8');

function manifest(): CommandManifest {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'apps', 'cli', 'oclif.manifest.json'), 'utf8')) as CommandManifest;
  } catch {
    throw new Error('apps/cli/oclif.manifest.json is missing: run `npm run build` first');
  }
}

const stale = (name: string) => `docs/${name} is out of date: run \`npm run build && npm run docs:operations\` and commit the result`;
const rowOf = (table: string, name: string) => table.split('\n').find((line) => line.startsWith(`| ${name} |`) || line.startsWith(`| ${name} (`) || line.startsWith(`| ${name} [`));

describe('docs/cli.md and docs/mcp.md operation tables', () => {
  it('docs/cli.md is up to date with the catalog and the commands', () => {
    const onDisk = doc('cli.md');
    if (withRegions(onDisk, 'docs/cli.md', CLI_DOC_REGIONS(manifest())) !== onDisk) throw new Error(stale('cli.md'));
  });

  it('docs/mcp.md is up to date with the catalog', () => {
    const onDisk = doc('mcp.md');
    if (withRegions(onDisk, 'docs/mcp.md', MCP_DOC_REGIONS) !== onDisk) throw new Error(stale('mcp.md'));
  });

  it('has one row per tool of the catalog, extensions marked, tool: false operations left out', () => {
    const tables = [renderCommandTable(manifest()), renderToolTable()];
    for (const op of OPERATIONS) {
      for (const table of tables) {
        const row = rowOf(table, op.name);
        expect([op.name, row !== undefined]).toEqual([op.name, isTool(op)]);
        if (row) expect([op.name, row.includes('(extension)')]).toEqual([op.name, EXTENSION_OPERATIONS.includes(op.name)]);
        if (row) expect(row).toContain(op.summary);
      }
    }
  });

  it("writes each command's usage from its arguments and flags", () => {
    expect(commandUsage(manifest(), 'devices list')).toEqual(['svc devices list [--status online|offline|pending] [--owner <owner>] [--name <name>]']);
    expect(commandUsage(manifest(), 'orgs show')).toEqual(['svc orgs show <id>']);
    expect(rowOf(renderCommandTable(manifest()), 'device_access_add')).toContain('`svc access add <device> <who> --role admin\\|editor\\|viewer`');
    expect(() => commandUsage(manifest(), 'no such')).toThrow(/not in oclif.manifest.json/);
  });

  it('marks [Batch] tools and lists exactly the readOnly ones as read-only', () => {
    expect(rowOf(renderToolTable(), 'device_exec')).toBe('| device_exec [Batch] | Run a command on a device |');
    expect(renderReadOnlyList()).toBe(`${OPERATIONS.filter((op) => isTool(op) && op.readOnly).map((op) => op.name).join(', ')}.`);
  });

  it('refuses a document without its generated region', () => {
    expect(() => withRegions('# nothing', 'docs/mcp.md', MCP_DOC_REGIONS)).toThrow(/docs\/mcp.md has no generated region/);
  });
});
