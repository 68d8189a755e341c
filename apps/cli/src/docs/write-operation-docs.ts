import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withRegions } from './generated-region';
import { CLI_DOC_REGIONS, CommandManifest, MCP_DOC_REGIONS } from './operation-docs';

// Runs compiled from apps/cli/dist/docs/, four levels below the repository root.
const root = join(__dirname, '..', '..', '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'apps', 'cli', 'oclif.manifest.json'), 'utf8')) as CommandManifest;
for (const [name, regions] of [['cli.md', CLI_DOC_REGIONS(manifest)], ['mcp.md', MCP_DOC_REGIONS]] as const) {
  const target = join(root, 'docs', name);
  writeFileSync(target, withRegions(readFileSync(target, 'utf8'), target, regions));
  process.stdout.write(`wrote ${target}\n`);
}
