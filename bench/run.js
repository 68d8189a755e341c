#!/usr/bin/env node
/**
 * Benchmarks (not part of the tests). Each prints a ratio against a baseline measured in the same
 * run on the same machine, so the numbers mean something on a busy shared box; figures measured
 * in rounds (BENCH_ROUNDS, 3) print their median round and the spread (min–max) of the rounds:
 *   storage: the embedded adapter (port + filter translation + JSON codec + mutex) vs raw
 *      better-sqlite3 prepared statements on the same table layout;
 *   http: the server's full stack (middleware, guard, filter, storage ping) on GET /health vs
 *      a bare node:http server answering the same JSON;
 *   listing (device-listing.js): GET /devices for a user with 10,000 devices, the full list and
 *      one page, vs a raw better-sqlite3 read of the same rows;
 *   fleet (tunnel-fleet.js): for runtimes on tcp, quic and auto, the carrier each tunnel used
 *      (server's view), cold start of 1,000 runtimes, memory per idle tunnel vs bare TLS, GET
 *      /health latency with the fleet connected, exec round trip vs a local spawn, reconnection
 *      after a server restart;
 *   forward (forward.js): svc over each carrier vs direct loopback TCP and `ssh -L`, push and pull;
 *   cp (cp.js): `svc cp` up and down vs `scp` to a loopback sshd, with CPU per MB of each process;
 *   exec (exec.js): POST /api/exec vs a local spawn, `svc exec -- true` vs `ssh host true`, and
 *      how soon output written on the device reaches svc's stdout;
 *   cli (cli-startup.js): `svc --version` / `--help` vs `node -e 0`;
 *   replicas (replicas.js): three replicas on NATS: forward throughput and exec p50 through a
 *      replica for a device another holds vs on the holder, failover after the holder's SIGKILL,
 *      and 3,000 tunnels re-homed after one replica's SIGKILL;
 *   links (carrier-links.js): the TCP and QUIC carriers on emulated device links (delay, loss,
 *      rate cap; runtime in its own network namespace): forward, exec, recovery from a loss
 *      burst, QUIC/TCP ratios; needs root, skips with the reason otherwise.
 * Run with `npm run bench` (builds first); BENCH_ONLY=exec,cli runs only the sections named.
 * The results on the reference machine are in docs/performance.md.
 */
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const http = require('node:http');
const { loadSqliteDriver } = require('../apps/server/dist/storage/embedded/sqlite-driver');
const Database = loadSqliteDriver();
const { benchDeviceListing } = require('./device-listing');
const { benchTunnelFleet } = require('./tunnel-fleet');
const { benchForward } = require('./forward');
const { benchCliStartup } = require('./cli-startup');
const { benchExec } = require('./exec');
const { rounds, selected, spread, ROUNDS } = require('./spread');

const ROOT = join(__dirname, '..');
const { EmbeddedStorage } = require(join(ROOT, 'apps/server/dist/storage/embedded/embedded-storage'));
const { defineCollection } = require(join(ROOT, 'apps/server/dist/storage/storage.port'));

const N_DOCS = Number(process.env.BENCH_DOCS ?? 5000);
const N_REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = 16;

function ms(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Rates per round (median and spread) and the svc/baseline time ratio of each round. */
function row(name, baselineMs, svcMs, unit, count) {
  const rates = (times) => spread(times.map((t) => (count / t) * 1000), 0);
  const ratios = svcMs.map((t, i) => t / baselineMs[i]);
  console.log(`${name.padEnd(34)} baseline ${rates(baselineMs)} ${unit}/s   svc ${rates(svcMs)} ${unit}/s   svc/baseline time ${spread(ratios)}x`);
}

async function benchStorage(dir) {
  const def = defineCollection({
    name: 'bench',
    fields: { owner: 'string', tags: 'string[]', createdAt: 'date', n: 'number' },
    indexes: [['owner']],
    conflictMessage: 'exists',
  });
  const docs = Array.from({ length: N_DOCS }, (_, i) => ({ id: `d${i}`, owner: `user:u${i % 100}@x.test`, tags: [`t${i % 7}`], createdAt: new Date(1e12 + i), n: i }));

  const figures = await rounds(async (round) => {
    const raw = new Database(join(dir, `raw-${round}.sqlite`));
    raw.pragma('journal_mode = WAL');
    raw.exec(`CREATE TABLE bench (id TEXT PRIMARY KEY, doc TEXT NOT NULL); CREATE INDEX bench_owner ON bench(json_extract(doc, '$.owner'));`);
    const insert = raw.prepare('INSERT INTO bench (id, doc) VALUES (?, ?)');
    const byOwner = raw.prepare(`SELECT doc FROM bench WHERE json_extract(doc, '$.owner') = ?`);
    let t = process.hrtime.bigint();
    for (const { id, ...rest } of docs) insert.run(id, JSON.stringify({ ...rest, createdAt: rest.createdAt.toISOString() }));
    const rawInsert = ms(t);
    t = process.hrtime.bigint();
    for (let i = 0; i < N_DOCS; i++) byOwner.all(`user:u${i % 100}@x.test`).map((r) => JSON.parse(r.doc));
    const rawFind = ms(t);
    raw.close();

    const storage = EmbeddedStorage.open(join(dir, `svc-${round}.sqlite`), [def]);
    const col = storage.collection(def);
    t = process.hrtime.bigint();
    for (const doc of docs) await col.insert(doc);
    const svcInsert = ms(t);
    t = process.hrtime.bigint();
    for (let i = 0; i < N_DOCS; i++) await col.find({ owner: `user:u${i % 100}@x.test` });
    const svcFind = ms(t);
    await storage.close();
    return { rawInsert, svcInsert, rawFind, svcFind };
  });
  row('storage insert (one doc)', figures.rawInsert, figures.svcInsert, 'ops', N_DOCS);
  row('storage find by indexed field', figures.rawFind, figures.svcFind, 'queries', N_DOCS);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function get(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${url}: ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

/** Keep-alive node:http client: light enough that the server, not the load generator, is measured. */
async function load(url) {
  let next = 0;
  const worker = async () => {
    while (next < N_REQUESTS) {
      next++;
      await get(url);
    }
  };
  const t = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return ms(t);
}

async function benchHttp(dir) {
  const body = JSON.stringify({ status: 'ok', storage: 'up', storage_kind: 'embedded', uptime_seconds: 1 });
  const raw = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  await new Promise((r) => raw.listen(0, '127.0.0.1', r));
  const rawUrl = `http://127.0.0.1:${raw.address().port}/health`;

  const { loadServerConfig } = require(join(ROOT, 'apps/server/dist/config/server-config'));
  const { createServerApp } = require(join(ROOT, 'apps/server/dist/app.factory'));
  const { JsonLogger } = require(join(ROOT, 'apps/server/dist/logging/json-logger'));
  const config = loadServerConfig({ DATA_DIR: dir, OAUTH_ISSUER: 'http://127.0.0.1:9/', OAUTH_AUDIENCE: 'bench', RUST_LOG: 'error', CERTIFICATE_PATH: join(dir, 'none') });
  const app = await createServerApp(config, { schedule: false, relay: false, logger: new JsonLogger('error') });
  await app.listen(0, '127.0.0.1');
  const svcUrl = `http://127.0.0.1:${app.getHttpServer().address().port}/health`;

  await load(rawUrl); // warm-up both
  await load(svcUrl);
  const { rawMs, svcMs } = await rounds(async () => ({ rawMs: await load(rawUrl), svcMs: await load(svcUrl) }));
  row(`GET /health (${CONCURRENCY} concurrent)`, rawMs, svcMs, 'req', N_REQUESTS);
  const latency = (times) => spread(times.map((t) => (t / N_REQUESTS) * CONCURRENCY));
  console.log(`${''.padEnd(34)} mean latency: baseline ${latency(rawMs)} ms, svc ${latency(svcMs)} ms`);
  agent.destroy();
  raw.close();
  await app.close();
}

/** The sections in the order they run; BENCH_ONLY selects some by name. */
const SECTIONS = [
  ['storage', (dir) => benchStorage(dir)],
  ['http', (dir) => benchHttp(dir)],
  ['listing', (dir) => benchDeviceListing(mkdirIn(dir, 'listing'))],
  ['fleet', () => benchTunnelFleet()],
  ['forward', () => benchForward()],
  ['cp', () => require('./cp').benchCp()],
  ['exec', () => benchExec()],
  ['cli', () => benchCliStartup()],
  ['replicas', () => require('./replicas').benchReplicas()],
  ['links', () => require('./carrier-links').benchCarrierLinks()],
];

function mkdirIn(dir, name) {
  const path = join(dir, name);
  require('node:fs').mkdirSync(path);
  return path;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const cpu = require('node:os').cpus()[0]?.model ?? 'unknown CPU';
  try {
    console.log(`svc benchmarks — node ${process.version}, ${require('node:os').availableParallelism()} CPUs (${cpu}), ${N_DOCS} docs, ${N_REQUESTS} requests, ${ROUNDS} rounds: median (min–max)`);
    for (const [name, bench] of SECTIONS) {
      if (!selected(name)) continue;
      const started = process.hrtime.bigint();
      console.log(`\n[${name}]`);
      await bench(dir);
      console.log(`[${name}: ${(ms(started) / 1000).toFixed(0)} s]`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
