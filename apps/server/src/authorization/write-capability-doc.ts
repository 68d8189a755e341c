import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withCapabilityTables } from './capability-doc';

// Runs compiled from apps/server/dist/authorization/, four levels below the repository root.
const target = join(__dirname, '..', '..', '..', '..', 'docs', 'security.md');
writeFileSync(target, withCapabilityTables(readFileSync(target, 'utf8')));
process.stdout.write(`wrote ${target}\n`);
