#!/usr/bin/env node
// The `svc` command. oclif reads package.json's "oclif" section and loads commands from dist/.
//
// Node 22.1+ keeps the compiled code of the modules svc loads in the user's own cache directory
// (dist/startup/compile-cache.js says where and how it is kept private).
require('../dist/startup/compile-cache').enableCompileCacheForThisProcess();
// oclif would load semver on every start only to check its own engines.node (>=18), which svc's
// stricter requirement (package.json engines) already implies: skip that check, and leave the
// environment of the commands svc starts as it was.
const skipEngineCheck = process.env.OCLIF_DISABLE_ENGINE_WARNING === undefined;
if (skipEngineCheck) process.env.OCLIF_DISABLE_ENGINE_WARNING = 'true';
const oclif = require('@oclif/core');
if (skipEngineCheck) delete process.env.OCLIF_DISABLE_ENGINE_WARNING;
oclif.execute({ dir: __dirname });
