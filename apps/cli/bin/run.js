#!/usr/bin/env node
// The `svc` command. oclif reads package.json's "oclif" section and loads commands from dist/.
require('@oclif/core').execute({ dir: __dirname });
