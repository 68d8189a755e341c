#!/usr/bin/env node
// Writes apps/cli/oclif.manifest.json after a build: with it, oclif lists commands and shows help
// without loading every command module, which keeps `svc --help` fast. `npm run build` runs this.
const { writeFileSync, rmSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { Plugin } = require('@oclif/core');
const { writeCatalogCommands } = require('./write-catalog-commands');

const root = resolve(__dirname, '..');
const target = join(root, 'oclif.manifest.json');

(async () => {
  rmSync(target, { force: true });
  writeCatalogCommands();
  const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true });
  await plugin.load();
  writeFileSync(target, `${JSON.stringify(plugin.manifest)}\n`);
  process.stdout.write(`oclif manifest: ${Object.keys(plugin.manifest.commands).length} commands\n`);
})().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
