/**
 * The Jest legs of `npm test`: the whole suite (unit specs and end-to-end suites, every runtime a
 * suite does not pin to a carrier on TCP), then once more over QUIC the suites that started such a
 * runtime. The first leg records them (defaultCarrier() in test/fixtures/runtime-process.ts): a
 * suite whose runtimes all chose their carrier, or that starts none, would only repeat itself.
 * Arguments go to the first leg's Jest. `npm run test:quic` runs every suite under test/ over QUIC.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const JEST = require.resolve('jest/bin/jest');

/** Runs Jest; true when it passed. */
function jest(args, env) {
  const run = spawnSync(process.execPath, [JEST, ...args], { stdio: 'inherit', env: { ...process.env, ...env } });
  process.exitCode = run.status ?? 1;
  return run.status === 0;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-test-legs-'));
const record = join(dir, 'default-carrier-suites');
if (jest(process.argv.slice(2), { SVC_CARRIER_RECORD: record })) {
  const suites = existsSync(record) ? [...new Set(readFileSync(record, 'utf8').split('\n').filter(Boolean))].sort() : [];
  process.stdout.write(`\nOver QUIC again: the ${suites.length} suites that started a runtime on the default carrier\n`);
  if (suites.length > 0) jest(['--runTestsByPath', ...suites], { SVC_TEST_CARRIER: 'quic' });
}
rmSync(dir, { recursive: true, force: true });
