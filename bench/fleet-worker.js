/**
 * A slice of a simulated fleet, in one process (bench/tunnel-fleet.js forks a few of these):
 * one real runtime daemon (`runDaemon`, the code `svc runtime run` runs, with its own lock and
 * config directory) per API key. Tells the parent, over IPC, each time a device's tunnel comes up.
 * The parent sends 'stop' to end it.
 */
const { mkdirSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const runtime = (path) => require(join(ROOT, 'apps/runtime/dist', path));
const { loadRuntimeConfig } = runtime('config/runtime-config');
const { runDaemon } = runtime('runtime-daemon');
const { RuntimeLogger } = runtime('logging/runtime-logger');

const { serverUrl, caFile, keys, dir, transport } = JSON.parse(process.argv[2]);
const stop = new AbortController();
require('node:events').setMaxListeners(0, stop.signal);
const silent = { write: () => true };

function start(apiKey, index) {
  const home = join(dir, `device-${index}`);
  mkdirSync(home, { recursive: true });
  const config = loadRuntimeConfig({ server: serverUrl, ca: caFile, transport, 'log-level': 'info' }, { SVC_API_KEY: apiKey, HOME: home, XDG_CONFIG_HOME: join(home, '.config') });
  // The daemon's own log line says when its tunnel is up: that is what the parent counts.
  const log = new RuntimeLogger('info', (line) => {
    if (line.includes('"msg":"tunnel up"')) process.send({ up: index });
  });
  return runDaemon(config, { stdin: process.stdin, stdout: silent, stderr: silent }, log, stop.signal).catch((error) => process.send({ failed: index, error: String(error) }));
}

const daemons = keys.map(start);
process.on('message', (message) => {
  if (message !== 'stop') return;
  stop.abort();
  Promise.all(daemons).then(() => process.exit(0));
});
