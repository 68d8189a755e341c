#!/usr/bin/env node
// The `svc` command. oclif reads package.json's "oclif" section and loads commands from dist/.
//
// Node 22.1+ keeps the compiled code of the modules svc loads on disk, so later starts skip most
// of the compiling (docs/performance.md, "Exec"). The cache lives in the user's own cache
// directory, never a shared /tmp one another local user could fill. NODE_COMPILE_CACHE, when set,
// wins (Node reads it itself); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const { enableCompileCache } = require('node:module');
if (enableCompileCache && !process.env.NODE_COMPILE_CACHE && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  const { homedir } = require('node:os');
  const { join } = require('node:path');
  try {
    enableCompileCache(join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svc', 'node-compile-cache'));
  } catch {
    // An unwritable cache directory only costs the speed-up.
  }
}
// oclif would load semver on every start only to check its own engines.node (>=18), which svc's
// stricter requirement (package.json engines) already implies: skip that check, and leave the
// environment of the commands svc starts as it was.
const skipEngineCheck = process.env.OCLIF_DISABLE_ENGINE_WARNING === undefined;
if (skipEngineCheck) process.env.OCLIF_DISABLE_ENGINE_WARNING = 'true';
const oclif = require('@oclif/core');
if (skipEngineCheck) delete process.env.OCLIF_DISABLE_ENGINE_WARNING;
oclif.execute({ dir: __dirname });
