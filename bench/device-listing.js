/**
 * Device listing at fleet size: one user owning BENCH_FLEET (10,000) devices in the embedded
 * store. Measures GET /devices (the full array) and one 100-device page from the middle of the
 * fleet (GET /devices?limit=100&cursor=…) over HTTP, sequentially and with 16 concurrent clients,
 * against a raw better-sqlite3 read of the same rows and fields from the same file in the same run
 * (the raw read runs sequentially: its concurrent line repeats the sequential cost per read).
 * Targets (issue 6): full list p50 ≤ 40 ms, a 100-device page p99 ≤ 10 ms.
 * Run from a build: `node bench/device-listing.js` (or as part of `npm run bench`).
 */
const { createPublicKey, generateKeyPairSync, randomBytes, sign } = require('node:crypto');
const { mkdtempSync, rmSync } = require('node:fs');
const http = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { loadSqliteDriver } = require('../apps/server/dist/storage/embedded/sqlite-driver');
const Database = loadSqliteDriver();
const { rounds, spread } = require('./spread');

const ROOT = join(__dirname, '..');
const dist = (path) => require(join(ROOT, 'apps/server/dist', path));

const FLEET = Number(process.env.BENCH_FLEET ?? 10_000);
const PAGE = 100;
const CONCURRENCY = 16;
const EMAIL = 'fleet@bench.test';
const OWNER = `user:${EMAIL}`;
const TARGETS = { fullP50: 40, pageP99: 10 };

function ms(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** A stand-in OpenID issuer: discovery and JWKS, and RS256 access tokens signed with its key. */
async function startIssuer() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...createPublicKey(privateKey).export({ format: 'jwk' }), kid: 'bench', alg: 'RS256', use: 'sig' };
  let base = '';
  const server = http.createServer((req, res) => {
    const body = req.url === '/jwks' ? { keys: [jwk] } : { issuer: `${base}/`, jwks_uri: `${base}/jwks` };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  const audience = 'https://bench.test';
  const token = (email) => {
    const now = Math.floor(Date.now() / 1000);
    const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = { iss: `${base}/`, aud: audience, sub: `sub-${email}`, email, email_verified: true, iat: now, exp: now + 3600 };
    const input = `${part({ alg: 'RS256', typ: 'at+jwt', kid: 'bench' })}.${part(claims)}`;
    return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
  };
  return { issuer: `${base}/`, audience, token, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Writes the fleet through the embedded adapter, as the server would have stored it. */
async function seed(file) {
  const { EmbeddedStorage } = dist('storage/embedded/embedded-storage');
  const { ALL_COLLECTIONS, DEVICES } = dist('storage/records');
  const storage = EmbeddedStorage.open(file, ALL_COLLECTIONS);
  const devices = storage.collection(DEVICES);
  const at = new Date('2025-01-01T00:00:00Z');
  await storage.transaction(async () => {
    for (let i = 0; i < FLEET; i++) {
      const id = `edge-${String(i).padStart(5, '0')}`;
      await devices.insert({
        id,
        name: `${id}.site-${i % 40}`,
        ownerScope: OWNER,
        allowedScopes: [],
        shares: [],
        info: { hostname: id, platform: 'linux', architecture: 'aarch64', os_version: 'Debian 12' },
        apiKeyHash: randomBytes(32).toString('hex'),
        createdAt: at,
        approvedBy: EMAIL,
        lastSeen: null,
        historySince: at,
      });
    }
  });
  await storage.close();
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function get(url, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        if (res.statusCode === 200) resolve(body);
        else reject(new Error(`${url}: ${res.statusCode} ${body.toString().slice(0, 200)}`));
      });
    });
    req.on('error', (error) => {
      // A kept-alive socket the server closed while idle (node's documented retry case).
      if (req.reusedSocket && error.code === 'ECONNRESET') get(url, headers).then(resolve, reject);
      else reject(error);
    });
  });
}

/** Latency of each call: `count` calls one after another, or spread over 16 concurrent clients. */
async function measure(call, count, concurrency) {
  const samples = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const t = process.hrtime.bigint();
      await call();
      samples.push(ms(t));
    }
  };
  const t = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ...stats(samples), perSecond: (count / ms(t)) * 1000 };
}

/**
 * Sequential lines compare latencies; concurrent ones compare the server's time per answer
 * (wall time / answers, queueing excluded) with one raw read.
 */
function line(label, svc, raw, concurrent = false) {
  const of = (runs, key) => runs.map((r) => r[key]);
  const ratios = svc.map((s, i) => (concurrent ? 1000 / s.perSecond / raw[i].p50 : s.p50 / raw[i].p50));
  const ratio = concurrent ? `svc time per answer ${spread(ratios, 1)}x raw` : `svc/raw p50 ${spread(ratios, 1)}x`;
  console.log(
    `${label.padEnd(36)} svc p50 ${spread(of(svc, 'p50'))} ms  p99 ${spread(of(svc, 'p99'))} ms  ${spread(of(svc, 'perSecond'), 0)} req/s` +
      `   raw p50 ${spread(of(raw, 'p50'))} ms   ${ratio}`,
  );
}

async function benchDeviceListing(dir) {
  const file = join(dir, 'svc.sqlite');
  let t = process.hrtime.bigint();
  await seed(file);
  console.log(`device listing: ${FLEET.toLocaleString('en')} devices of one user seeded in ${ms(t).toFixed(0)} ms`);

  const issuer = await startIssuer();
  const { loadServerConfig } = dist('config/server-config');
  const { createServerApp } = dist('app.factory');
  const { JsonLogger } = dist('logging/json-logger');
  const config = loadServerConfig({
    DATA_DIR: dir,
    OAUTH_ISSUER: issuer.issuer,
    OAUTH_AUDIENCE: issuer.audience,
    RUST_LOG: 'error',
    CERTIFICATE_PATH: join(dir, 'none'),
  });
  const app = await createServerApp(config, { schedule: false, relay: false, logger: new JsonLogger('error') });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;
  const headers = { authorization: `Bearer ${issuer.token(EMAIL)}` };

  // The baseline reads the same rows and fields, as the listing item needs them, straight from
  // the same file: the least SQLite can do for this answer.
  const raw = new Database(file, { readonly: true });
  const columns = `id, json_extract(doc, '$.name') AS name, json_extract(doc, '$.ownerScope') AS owner`;
  const rawAll = raw.prepare(`SELECT ${columns} FROM devices WHERE json_extract(doc, '$.ownerScope') = ? ORDER BY id`);
  const rawPage = raw.prepare(`SELECT ${columns} FROM devices WHERE json_extract(doc, '$.ownerScope') = ? AND id > ? ORDER BY id LIMIT ?`);
  const decode = (rows) => rows.map((row) => ({ id: row.id, name: row.name, status: 'offline', owner: row.owner }));

  try {
    const full = await get(`${base}/devices`, headers);
    const listed = JSON.parse(full.toString());
    if (!Array.isArray(listed) || listed.length !== FLEET) throw new Error(`GET /devices listed ${listed.length} devices, expected ${FLEET}`);
    // A page from the middle of the fleet, reached by following cursors as a client would.
    let cursor = null;
    let pageUrl = `${base}/devices?limit=${PAGE}`;
    for (let i = 0; i < Math.floor(FLEET / PAGE / 2); i++) {
      cursor = JSON.parse((await get(pageUrl, headers)).toString()).next_cursor;
      pageUrl = `${base}/devices?limit=${PAGE}&cursor=${cursor}`;
    }
    const page = JSON.parse((await get(pageUrl, headers)).toString());
    if (page.items.length !== PAGE) throw new Error(`page held ${page.items.length} devices, expected ${PAGE}`);
    const afterId = listed[listed.findIndex((item) => item.id === page.items[0].id) - 1].id;
    console.log(`full answer ${(full.length / 1024).toFixed(0)} KiB, page answer ${(JSON.stringify(page).length / 1024).toFixed(1)} KiB\n`);

    const fullCall = () => get(`${base}/devices`, headers);
    const pageCall = () => get(pageUrl, headers);
    const rawFull = async () => decode(rawAll.all(OWNER));
    const rawPageCall = async () => decode(rawPage.all(OWNER, afterId, PAGE));
    for (let i = 0; i < 20; i++) {
      await Promise.all([fullCall(), pageCall()]);
      await Promise.all([rawFull(), rawPageCall()]);
    }

    const figures = await rounds(async () => {
      const raws = { full: await measure(rawFull, 200, 1), page: await measure(rawPageCall, 2000, 1) };
      const results = {
        fullSeq: await measure(fullCall, 200, 1),
        fullConc: await measure(fullCall, 400, CONCURRENCY),
        pageSeq: await measure(pageCall, 2000, 1),
        pageConc: await measure(pageCall, 4000, CONCURRENCY),
      };
      return { raws, ...results };
    });
    line('GET /devices (full), sequential', figures.fullSeq, figures.raws.map((r) => r.full));
    line(`GET /devices (full), ${CONCURRENCY} concurrent`, figures.fullConc, figures.raws.map((r) => r.full), true);
    line(`GET /devices?limit=${PAGE}, sequential`, figures.pageSeq, figures.raws.map((r) => r.page));
    line(`GET /devices?limit=${PAGE}, ${CONCURRENCY} concurrent`, figures.pageConc, figures.raws.map((r) => r.page), true);
    const verdict = (ok) => (ok ? 'met' : 'MISSED');
    const worst = (runs, key) => Math.max(...runs.map((r) => r[key]));
    console.log(
      `\ntargets (worst round): full list p50 ≤ ${TARGETS.fullP50} ms (sequential ${worst(figures.fullSeq, 'p50').toFixed(1)} ms: ${verdict(worst(figures.fullSeq, 'p50') <= TARGETS.fullP50)}); ` +
        `page p99 ≤ ${TARGETS.pageP99} ms (sequential ${worst(figures.pageSeq, 'p99').toFixed(1)} ms: ${verdict(worst(figures.pageSeq, 'p99') <= TARGETS.pageP99)}, ` +
        `${CONCURRENCY} concurrent ${worst(figures.pageConc, 'p99').toFixed(1)} ms)`,
    );
  } finally {
    raw.close();
    agent.destroy();
    await app.close();
    await issuer.close();
  }
}

module.exports = { benchDeviceListing, startIssuer };

if (require.main === module) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-listing-'));
  benchDeviceListing(dir)
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(() => rmSync(dir, { recursive: true, force: true }));
}
