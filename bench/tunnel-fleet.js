/**
 * The tunnel at fleet size (issue 7 targets in brackets), against a server started as its own
 * process from the build, with BENCH_TUNNELS (1,000) real runtime daemons spread over a few
 * processes (bench/fleet-worker.js):
 *   1. server memory per idle tunnel [≤ 100 KB], vs a bare TLS 1.3 server holding as many idle
 *      connections, measured in the same run (the least any TLS tunnel costs);
 *   2. small exec round trip (`true`) through the REST API, the relay and a runtime, p50/p99
 *      [p50 ≤ 3 ms, p99 ≤ 15 ms], vs spawning `true` locally plus a GET /health round trip;
 *   3. time for every runtime to be back online after the server restarts [≤ 30 s], counted
 *      by the runtimes and checked against the server's own device listing.
 * Run from a build: `node bench/tunnel-fleet.js` (or as part of `npm run bench`).
 */
const { fork, spawn } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { startIssuer } = require('./device-listing');
const { request, seedDevices, serverEnv, sleep, startServer } = require('./server-process');

const TUNNELS = Number(process.env.BENCH_TUNNELS ?? 1000);
const WORKERS = 4;
const EXECS = Number(process.env.BENCH_EXECS ?? 300);
/** The carrier the fleet dials: `tcp` (default) or `quic`. */
const TRANSPORT = process.env.BENCH_TRANSPORT ?? 'tcp';
const EMAIL = 'fleet@bench.test';
const TARGETS = { bytesPerTunnel: 100 * 1024, execP50: 3, execP99: 15, backSeconds: 30 };

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

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-fleet-'));
  const issuer = await startIssuer();
  const workers = [];
  let server;
  try {
    let t = process.hrtime.bigint();
    const keys = await seedDevices(join(dir, 'svc.sqlite'), TUNNELS, EMAIL, 'fleet');
    const env = await serverEnv(dir, issuer);
    const serverUrl = `http://127.0.0.1:${env.REST_PORT}`;
    const auth = { authorization: `Bearer ${issuer.token(EMAIL)}` };
    console.log(`tunnel fleet (${TRANSPORT} carrier): ${TUNNELS} devices seeded in ${ms(t).toFixed(0)} ms; node ${process.version}`);
    server = await startServer(env);
    await sleep(1000);
    const idleRss = rssBytes(server.child.pid);

    // The fleet: every daemon discovers the tunnel (GET /auth/config), dials, says hello.
    const caFile = join(dir, 'tls', 'cert.pem');
    const up = new Set();
    let ups = 0;
    let onUp = () => undefined;
    const perWorker = Math.ceil(TUNNELS / WORKERS);
    t = process.hrtime.bigint();
    for (let w = 0; w < WORKERS; w++) {
      const slice = keys.slice(w * perWorker, (w + 1) * perWorker);
      const offset = w * perWorker;
      const child = fork(join(__dirname, 'fleet-worker.js'), [JSON.stringify({ serverUrl, caFile, keys: slice, dir: join(dir, `w${w}`), transport: TRANSPORT })], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: (process.env.BENCH_WORKER_ARGS ?? '').split(' ').filter(Boolean) });
      child.on('message', (m) => {
        if (m.failed !== undefined) console.error(`device ${offset + m.failed} stopped: ${m.error}`);
        if (m.up === undefined) return;
        up.add(offset + m.up);
        ups++;
        onUp();
      });
      workers.push(child);
    }
    const allUp = (count) => new Promise((resolve) => {
      onUp = () => count() >= TUNNELS && resolve();
      onUp();
    });
    await allUp(() => up.size);
    const firstConnectMs = ms(t);
    await sleep(3000);
    const fleetRss = rssBytes(server.child.pid);
    const perTunnel = (fleetRss - idleRss) / TUNNELS;
    const bare = await bareTlsBytesPerConnection(join(dir, 'tls'), TUNNELS);
    console.log(`${TUNNELS} tunnels up from cold in ${(firstConnectMs / 1000).toFixed(1)} s`);
    console.log(`server memory per idle tunnel   svc ${(perTunnel / 1024).toFixed(1)} KB (RSS ${(idleRss / 2 ** 20).toFixed(0)} → ${(fleetRss / 2 ** 20).toFixed(0)} MiB)   bare TLS ${(bare / 1024).toFixed(1)} KB   svc/bare ${(perTunnel / bare).toFixed(1)}x   target ≤ ${TARGETS.bytesPerTunnel / 1024} KB`);

    // Small exec round trips with the whole fleet connected.
    const execOnce = async () => {
      const res = await request(`${serverUrl}/api/exec`, { method: 'POST', headers: auth, body: { device: 'fleet-00000', command: ['true'] } });
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
    await timed(execOnce, 30);
    await timed(spawnOnce, 30);
    const exec = await timed(execOnce, EXECS);
    const local = await timed(spawnOnce, EXECS);
    const health = await timed(healthOnce, EXECS);
    const f = (n) => n.toFixed(2);
    console.log(`exec round trip (true)          svc p50 ${f(exec.p50)} ms  p99 ${f(exec.p99)} ms   local spawn p50 ${f(local.p50)} ms + GET /health p50 ${f(health.p50)} ms   svc/(spawn+health) p50 ${f(exec.p50 / (local.p50 + health.p50))}x   target p50 ≤ ${TARGETS.execP50} ms, p99 ≤ ${TARGETS.execP99} ms`);

    // Server restart: every daemon notices, backs off with jitter, and reconnects by itself.
    up.clear();
    const stoppedAt = process.hrtime.bigint();
    await server.stop();
    server = await startServer(env);
    const restartMs = ms(stoppedAt);
    await allUp(() => up.size);
    const backMs = ms(stoppedAt);
    const listed = await request(`${serverUrl}/devices?status=online&limit=1000`, { headers: auth });
    const online = listed.status === 200 ? JSON.parse(listed.body).items.length : `error ${listed.status}`;
    console.log(`back online after server restart svc ${(backMs / 1000).toFixed(1)} s for ${TUNNELS} runtimes (server down→answering ${(restartMs / 1000).toFixed(1)} s; server lists ${online} online)   target ≤ ${TARGETS.backSeconds} s`);
  } finally {
    workers.forEach((w) => w.connected && w.send('stop'));
    await Promise.all(workers.map((w) => new Promise((resolve) => (w.exitCode !== null ? resolve() : w.once('exit', resolve)))));
    if (server) await server.stop();
    await issuer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { benchTunnelFleet: main };
