/**
 * The tunnel at fleet size (issue 16 goals in brackets), against a server started as its own
 * process from the build, with BENCH_TUNNELS (1,000) runtimes spread over a few processes
 * (bench/fleet-worker.js), once per runtime `--transport` in BENCH_FLEET_CARRIERS (tcp, quic and
 * auto, the default), each figure BENCH_ROUNDS (3) times with a fresh server and a cold fleet:
 *   1. the carrier each tunnel actually runs on, from the server's view (device_status `carrier`);
 *   2. time for the whole fleet to come up from cold [QUIC: ≤ 20 s];
 *   3. server memory per idle tunnel, vs a bare TLS 1.3 server holding as many idle connections,
 *      measured in the same round (the least any TLS tunnel costs) [≤ 1.5×]; server CPU to bring
 *      the fleet up and to hold it idle, per tunnel (CPU time, unlike wall time, hardly depends on
 *      what else loads the machine; each time figure is printed with the load average then);
 *   4. GET /health latency while the fleet is connected, and small exec round trips (`true`)
 *      through the REST API, the relay and a runtime, vs a local spawn;
 *   5. time for every runtime to be back online after the server restarts [≤ 15 s].
 * BENCH_FLEET_CLIENT=tunnel runs only the runtime's tunnel loop per device instead of a whole
 * daemon (light enough for BENCH_TUNNELS=10000 on one machine). Every simulated device dials from
 * 127.0.0.1, so the server runs with TUNNEL_MAX_CONNECTIONS_PER_ADDRESS raised (server-process.js).
 * Run from a build: `node bench/tunnel-fleet.js` (or as part of `npm run bench`).
 */
const { fork, spawn } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { startIssuer } = require('./device-listing');
const { treeCpuMs } = require('./proc-cpu');
const { request, seedDevices, serverEnv, sleep, startServer } = require('./server-process');
const { ROUNDS, rounds, spread } = require('./spread');

const TUNNELS = Number(process.env.BENCH_TUNNELS ?? 1000);
/** `daemon`: a whole runtime (`runDaemon`) per device; `tunnel`: only its tunnel loop, light enough for 10,000 (bench/fleet-worker.js). */
const CLIENT = process.env.BENCH_FLEET_CLIENT ?? 'daemon';
/** About 250 daemons (or 2,500 tunnel clients) per worker process. */
const WORKERS = Math.max(4, Math.ceil(TUNNELS / (CLIENT === 'tunnel' ? 2500 : 250)));
const EXECS = Number(process.env.BENCH_EXECS ?? 300);
/** The runtimes' `--transport`, one after the other: tcp, quic, auto (the default carrier). */
const CARRIERS = (process.env.BENCH_FLEET_CARRIERS ?? 'tcp,quic,auto').split(',').map((c) => c.trim());
const EMAIL = 'fleet@bench.test';
/** A fleet not all up by then is reported as "up/total after DEADLINE_S" instead of waited for. */
const DEADLINE_S = Number(process.env.BENCH_FLEET_DEADLINE_S ?? 180);
/** Issue 16 goals. */
const TARGETS = { perTunnelRatio: 1.5, coldSeconds: 20, backSeconds: 15 };
/** The window over which the server's CPU is read while the fleet sits idle. */
const IDLE_CPU_S = Number(process.env.BENCH_FLEET_IDLE_CPU_S ?? 20);
const loadAverage = () => require('node:os').loadavg()[0];

const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  return { p50: at(50), p99: at(99) };
}

function rssBytes(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line.replace(/\D+/g, '')) * 1024;
}

/** Baseline: a bare TLS 1.3 server (same certificate) holding `count` idle connections. */
async function bareTlsBytesPerConnection(certDir, count) {
  const script = `
    const tls = require('node:tls'); const fs = require('node:fs');
    const held = [];
    const server = tls.createServer({ cert: fs.readFileSync(${JSON.stringify(join(certDir, 'cert.pem'))}), key: fs.readFileSync(${JSON.stringify(join(certDir, 'key.pem'))}), minVersion: 'TLSv1.3' }, (s) => held.push(s));
    server.listen(0, '127.0.0.1', () => process.send(server.address().port));`;
  const file = join(certDir, 'bare-tls-server.js');
  writeFileSync(file, script);
  const child = fork(file, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise((resolve) => child.once('message', resolve));
  await sleep(500);
  const before = rssBytes(child.pid);
  const tls = require('node:tls');
  const ca = readFileSync(join(certDir, 'cert.pem'));
  const sockets = [];
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => new Promise((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost', minVersion: 'TLSv1.3' }, () => resolve());
      s.on('error', reject);
      sockets.push(s);
    })));
  }
  await sleep(2000);
  const after = rssBytes(child.pid);
  sockets.forEach((s) => s.destroy());
  child.kill();
  return (after - before) / count;
}

/** Counts of the tunnels by carrier, from the server's view (device_status `carrier`, batches of 100). */
async function carriersSeen(serverUrl, auth) {
  const counts = {};
  for (let i = 0; i < TUNNELS; i += 100) {
    const devices = Array.from({ length: Math.min(100, TUNNELS - i) }, (_, k) => deviceId(i + k));
    const res = await request(`${serverUrl}/devices/status`, { method: 'POST', headers: auth, body: { devices } });
    if (res.status !== 200) throw new Error(`device status: ${res.status} ${res.body}`);
    for (const item of JSON.parse(res.body).results) {
      const key = item.status === 'online' ? item.carrier : 'offline';
      counts[key] = (counts[key] ?? 0) + 1;
    }
  }
  return Object.entries(counts).sort().map(([carrier, n]) => `${carrier} ${n}`).join(', ');
}

const deviceId = (i) => `fleet-${String(i).padStart(5, '0')}`;

/**
 * One round on one carrier: a fresh server, the fleet started cold, memory and /health latency
 * with the fleet idle, exec round trips, then a server restart.
 */
async function round(transport, keys, dir, env, auth) {
  const serverUrl = `http://127.0.0.1:${env.REST_PORT}`;
  const workers = [];
  let server;
  try {
    server = await startServer(env);
    await sleep(1000);
    const idleRss = rssBytes(server.child.pid);
    const cpuBeforeFleet = treeCpuMs(server.child.pid);
    const caFile = join(dir, 'tls', 'cert.pem');
    const up = new Set();
    let onUp = () => undefined;
    const perWorker = Math.ceil(TUNNELS / WORKERS);
    let t = process.hrtime.bigint();
    for (let w = 0; w < WORKERS; w++) {
      const slice = keys.slice(w * perWorker, (w + 1) * perWorker);
      const offset = w * perWorker;
      const args = JSON.stringify({ serverUrl, caFile, keys: slice, dir: join(dir, `w${w}`), transport, client: CLIENT });
      const child = fork(join(__dirname, 'fleet-worker.js'), [args], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: (process.env.BENCH_WORKER_ARGS ?? '').split(' ').filter(Boolean) });
      child.on('message', (m) => {
        if (m.failed !== undefined) console.error(`device ${offset + m.failed} stopped: ${m.error}`);
        if (m.up === undefined) return;
        up.add(offset + m.up);
        onUp();
      });
      workers.push(child);
    }
    /** Resolves once every device is up, or at DEADLINE_S with how many were (then the figure reads "n/N"). */
    const allUp = (since) => new Promise((resolve) => {
      const timer = setTimeout(() => resolve(`${up.size}/${TUNNELS} after`), DEADLINE_S * 1000);
      onUp = () => up.size >= TUNNELS && (clearTimeout(timer), resolve(''));
      onUp();
    }).then((partial) => `${partial}${(ms(since) / 1000).toFixed(1)}`);
    const cold = await allUp(t);
    const loadCold = loadAverage();
    const coldCpuMs = treeCpuMs(server.child.pid) - cpuBeforeFleet;
    const carriersCold = await carriersSeen(serverUrl, auth);
    await sleep(3000);
    const idleCpuStart = treeCpuMs(server.child.pid);
    await sleep(IDLE_CPU_S * 1000);
    const idleCpuMsPerS = (treeCpuMs(server.child.pid) - idleCpuStart) / IDLE_CPU_S;
    const fleetRss = rssBytes(server.child.pid);
    const perTunnelKB = (fleetRss - idleRss) / TUNNELS / 1024;
    const bareKB = (await bareTlsBytesPerConnection(join(dir, 'tls'), TUNNELS)) / 1024;

    const execOnce = async () => {
      const res = await request(`${serverUrl}/api/exec`, { method: 'POST', headers: auth, body: { device: deviceId(0), command: ['true'] } });
      if (res.status !== 200 || JSON.parse(res.body).exit_code !== 0) throw new Error(`exec: ${res.status} ${res.body}`);
    };
    const spawnOnce = () => new Promise((resolve) => spawn('true').once('exit', resolve));
    const healthOnce = () => request(`${serverUrl}/health`);
    const timed = async (call, count) => {
      const samples = [];
      for (let i = 0; i < count; i++) {
        const s = process.hrtime.bigint();
        await call();
        samples.push(ms(s));
      }
      return percentiles(samples);
    };
    const health = await timed(healthOnce, EXECS);
    const none = { p50: NaN, p99: NaN };
    if (up.has(0)) await timed(execOnce, 10).catch(() => undefined);
    const exec = up.has(0) ? await timed(execOnce, EXECS).catch((error) => (console.error(`  exec: ${error.message}`), none)) : none;
    const local = await timed(spawnOnce, EXECS);

    // Server restart: every daemon notices, backs off with jitter, and reconnects by itself.
    up.clear();
    const stoppedAt = process.hrtime.bigint();
    await server.stop();
    const stopS = ms(stoppedAt) / 1000;
    server = await startServer(env);
    const restartS = ms(stoppedAt) / 1000;
    const back = await allUp(stoppedAt);
    const loadBack = loadAverage();
    const carriersBack = await carriersSeen(serverUrl, auth);
    return {
      cold, perTunnelKB, bareKB, ratio: perTunnelKB / bareKB, rssMiB: fleetRss / 2 ** 20, healthP50: health.p50, healthP99: health.p99,
      execP50: exec.p50, execP99: exec.p99, spawnP50: local.p50, back, stopS, restartS, carriersCold, carriersBack,
      loadCold, loadBack, coldCpuMsPerTunnel: coldCpuMs / TUNNELS, idleCpuMsPerS, idleCpuUsPerTunnel: (idleCpuMsPerS * 1000) / TUNNELS,
    };
  } finally {
    workers.forEach((w) => w.connected && w.send('stop'));
    await Promise.all(workers.map((w) => new Promise((resolve) => (w.exitCode !== null ? resolve() : w.once('exit', resolve)))));
    if (server) await server.stop();
  }
}

async function main() {
  const issuer = await startIssuer();
  try {
    for (const transport of CARRIERS) {
      const dir = mkdtempSync(join(tmpdir(), 'svc-bench-fleet-'));
      try {
        const keys = await seedDevices(join(dir, 'svc.sqlite'), TUNNELS, EMAIL, 'fleet');
        const env = await serverEnv(dir, issuer);
        const auth = { authorization: `Bearer ${issuer.token(EMAIL)}` };
        const load = () => loadAverage().toFixed(1);
        console.log(`tunnel fleet, runtimes --transport ${transport}: ${TUNNELS} ${CLIENT === 'tunnel' ? 'tunnel clients (runtime tunnel loop only)' : 'runtime daemons'}, ${ROUNDS} rounds, median (min–max); load average ${load()} at start`);
        const r = await rounds(() => round(transport, keys, dir, env, auth));
        const f = (values, digits = 1) => spread(values, digits);
        console.log(`  carriers (server's view)         cold start: ${r.carriersCold.join(' | ')};  after restart: ${r.carriersBack.join(' | ')}`);
        console.log(`  ${TUNNELS} tunnels up from cold      ${r.cold.join(' | ')} s   target ≤ ${TARGETS.coldSeconds} s; load average then ${f(r.loadCold)}`);
        console.log(`  server CPU, cold start           ${f(r.coldCpuMsPerTunnel, 2)} ms per tunnel`);
        console.log(`  server CPU, fleet idle ${IDLE_CPU_S} s     ${f(r.idleCpuMsPerS, 1)} ms per s (${f(r.idleCpuMsPerS.map((v) => v / 10), 2)} % of a core), ${f(r.idleCpuUsPerTunnel, 2)} µs per s per tunnel`);
        console.log(`  server memory per idle tunnel    svc ${f(r.perTunnelKB)} KB   bare TLS ${f(r.bareKB)} KB   svc/bare ${f(r.ratio, 2)}x   (server RSS ${f(r.rssMiB, 0)} MiB)   target ≤ ${TARGETS.perTunnelRatio}x`);
        console.log(`  GET /health, fleet connected     p50 ${f(r.healthP50, 2)} ms  p99 ${f(r.healthP99, 2)} ms`);
        console.log(`  exec round trip (true)           svc p50 ${f(r.execP50, 2)} ms  p99 ${f(r.execP99, 2)} ms   local spawn p50 ${f(r.spawnP50, 2)} ms`);
        console.log(`  back online after restart        ${r.back.join(' | ')} s (server stop ${f(r.stopS)} s, down→answering ${f(r.restartS)} s)   target ≤ ${TARGETS.backSeconds} s; load average then ${f(r.loadBack)}, ${load()} at end`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await issuer.close();
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { benchTunnelFleet: main };
