import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { QuicWorkerSettings } from './quic-bridge-messages';

/**
 * Starts quic-worker in a worker thread. Built (dist/), the compiled quic-worker.js sits next to
 * this file. Run from sources (Jest, which transpiles with swc), there is only quic-worker.ts:
 * the worker then registers the same swc transpiler (a root dev dependency) before loading it.
 */
export function startQuicWorker(settings: QuicWorkerSettings): Worker {
  const compiled = join(__dirname, 'quic-worker.js');
  if (existsSync(compiled)) return new Worker(compiled, { workerData: settings });
  const source = join(__dirname, 'quic-worker.ts');
  const swc = require.resolve('@swc/core', { paths: [__dirname] });
  const bootstrap = `
const Module = require('node:module');
const swc = require(${JSON.stringify(swc)});
Module._extensions['.ts'] = function (module, filename) {
  const { code } = swc.transformFileSync(filename, { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } });
  module._compile(code, filename);
};
require(${JSON.stringify(source)});
`;
  return new Worker(bootstrap, { eval: true, workerData: settings });
}
