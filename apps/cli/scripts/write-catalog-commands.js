#!/usr/bin/env node
// Writes the `svc` commands derived from the operation catalog: one module under dist/commands
// per operation whose entry names a `command` (apps/cli/src/catalog-command.ts builds it from the
// entry). A command written by hand at the same place is an error. write-manifest.js runs this
// first, so `npm run build` leaves them in the manifest like the others.
const { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');

const root = resolve(__dirname, '..');
const commandsDir = join(root, 'dist', 'commands');
const MARK = '// derived from the operation catalog by scripts/write-catalog-commands.js';

function derivedFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return derivedFiles(path);
    return entry.name.endsWith('.js') && readFileSync(path, 'utf8').startsWith(MARK) ? [path] : [];
  });
}

function writeCatalogCommands() {
  const { OPERATIONS } = require('@svc/common/operations');
  for (const stale of derivedFiles(commandsDir)) rmSync(stale);
  const written = [];
  for (const op of OPERATIONS.filter((entry) => entry.command)) {
    const parts = op.command.split(' ');
    if (existsSync(join(root, 'src', 'commands', ...parts) + '.ts') || existsSync(join(root, 'src', 'commands', ...parts, 'index.ts'))) {
      throw new Error(`${op.name}: \`svc ${op.command}\` is written by hand; drop \`command\` from its catalog entry or the hand-written command`);
    }
    const file = join(commandsDir, ...parts) + '.js';
    const module = relative(dirname(file), join(root, 'dist', 'catalog-command')).replace(/\\/g, '/');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${MARK}\n'use strict';\nObject.defineProperty(exports, '__esModule', { value: true });\nexports.default = require('${module.startsWith('.') ? module : `./${module}`}').catalogCommand(${JSON.stringify(op.name)});\n`);
    written.push(op.command);
  }
  return written;
}

module.exports = { writeCatalogCommands };
