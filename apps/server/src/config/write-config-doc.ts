import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderConfigurationDoc } from './config-doc';

// Runs compiled from apps/server/dist/config/, four levels below the repository root.
const target = join(__dirname, '..', '..', '..', '..', 'docs', 'configuration.md');
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, renderConfigurationDoc());
process.stdout.write(`wrote ${target}\n`);
