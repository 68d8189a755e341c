/**
 * A slice of a simulated fleet, in one process (bench/tunnel-fleet.js forks a few of these):
 * per API key, one real runtime daemon (`runDaemon`, the code `svc runtime run` runs, with its own
 * lock and config directory), or with `client: 'tunnel'` only the daemon's tunnel loop (discovery,
 * carrier choice, backoff, hello, reverse HTTP/2 with the exec handler): a tenth of the memory, so
 * 10,000 fit on one machine. Tells the parent, over IPC, each time a device's tunnel comes up.
 * With `tunnel` ("host:port", e.g. a balancer in front of several replicas) the runtimes dial it
 * instead of the address GET /auth/config announces, as `--tunnel` does; each lost tunnel is told
 * too ({down}). The parent sends 'stop' to end it. The fleet stands for devices across a network, so `auto`
 * counts the loopback server as far (SVC_QUIC_NEAR_RTT=off) and stays on QUIC, as it would there.
 */
const { mkdirSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const runtime = (path) => require(join(ROOT, 'apps/runtime/dist', path));
const { loadRuntimeConfig } = runtime('config/runtime-config');
const { runDaemon } = runtime('runtime-daemon');
const { RuntimeLogger } = runtime('logging/runtime-logger');

const { serverUrl, caFile, keys, dir, transport, client, tunnel } = JSON.parse(process.argv[2]);
const stop = new AbortController();
require('node:events').setMaxListeners(0, stop.signal);
const silent = { write: () => true };

/** The daemon's own log lines say when its tunnel comes up or is lost: that is what the parent counts. */
function tell(line, index) {
  if (line.includes('"msg":"tunnel up"')) process.send({ up: index });
  else if (line.includes('"msg":"tunnel lost"')) process.send({ down: index });
}

function start(apiKey, index) {
  const home = join(dir, `device-${index}`);
  mkdirSync(home, { recursive: true });
  const config = loadRuntimeConfig({ server: serverUrl, ca: caFile, transport, 'log-level': 'info', ...(tunnel && { tunnel }) }, { SVC_API_KEY: apiKey, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), SVC_QUIC_NEAR_RTT: 'off' });
  const log = new RuntimeLogger('info', (line) => tell(line, index));
  return runDaemon(config, { stdin: process.stdin, stdout: silent, stderr: silent }, log, stop.signal).catch((error) => process.send({ failed: index, error: String(error) }));
}

/** The tunnel loop alone, wired as runDaemon wires it (apps/runtime/src/runtime-daemon.ts). */
function tunnelOnly(apiKey, index) {
  const { ServerApi } = runtime('http/server-api');
  const { loadTunnelTrust } = runtime('tunnel/tls-trust');
  const { discoverTunnel, withAnnouncedQuic } = runtime('tunnel/tunnel-discovery');
  const { parseHostPort } = runtime('config/runtime-variables');
  const given = tunnel ? parseHostPort(tunnel) : undefined;
  const { openTunnel } = runtime('tunnel/tunnel-connection');
  const { connectWithTransport } = runtime('tunnel/transport-select');
  const { runTunnelLoop } = runtime('tunnel/tunnel-loop');
  const { Backoff } = runtime('tunnel/backoff');
  const { StreamRouter } = runtime('tunnel/stream-router');
  const { OperationRegistry } = runtime('supervisor/operation-registry');
  const { handleExec } = runtime('handlers/exec-handler');
  const { sleep } = runtime('util/abortable');
  const trust = loadTunnelTrust(caFile, undefined);
  const api = new ServerApi(new URL(serverUrl), trust.ca);
  const log = new RuntimeLogger('info', (line) => tell(line, index));
  const operations = new OperationRegistry();
  const router = new StreamRouter({ exec: handleExec }, operations, log);
  const hello = { version: 'bench', boot_id: `bench-${process.pid}-${index}` };
  return runTunnelLoop(
    {
      connect: () =>
        connectWithTransport({
          mode: transport,
          probeIntervalMs: 60_000,
          nearRttMs: 0,
          target: () => (given ? withAnnouncedQuic(given, api) : discoverTunnel(api)),
          open: (target, carrier, connectTimeoutMs, note) => openTunnel({ target, carrier, connectTimeoutMs, trust, apiKey, runtime: note ? { ...hello, carrier_note: note } : hello, router, operations, log }),
          log,
        }),
      backoff: new Backoff(),
      log,
      sleep,
      now: Date.now,
    },
    stop.signal,
  ).catch((error) => process.send({ failed: index, error: String(error) }));
}

const daemons = keys.map(client === 'tunnel' ? tunnelOnly : start);
process.on('message', (message) => {
  if (message !== 'stop') return;
  stop.abort();
  Promise.all(daemons).then(() => process.exit(0));
});
