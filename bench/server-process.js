/**
 * What the tunnel benchmarks share: a server started the way an operator starts it (its own
 * process, from the build), devices seeded into its store with known API keys, free ports.
 */
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const http = require('node:http');
const net = require('node:net');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const dist = (path) => require(join(ROOT, 'apps/server/dist', path));
const sleep = (t) => new Promise((resolve) => setTimeout(resolve, t));

/*
 * The bench's own copies of test/fixtures' freePort (free-port.ts) and eventually (eventually.ts,
 * here `until`): the bench is plain JavaScript that `node bench/run.js` runs on the machine's Node
 * (20, no TypeScript loader), so it cannot load test/fixtures; the tests, run by Jest, use those.
 * replicas-scale.e2e-spec.ts reaches these through the bench modules it shares.
 */
function freePort() {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves once `check()` is true, polling every `everyMs`; rejects after `deadlineMs` with `describe()`. */
async function until(check, deadlineMs, describe, everyMs = 100) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > deadlineMs) throw new Error(`not within ${deadlineMs / 1000} s: ${describe()}`);
    await sleep(everyMs);
  }
}

/** Approved devices `<prefix>-00000…`, owned by `user:<email>`, as the server stores them; returns their API keys. */
async function seedDevices(file, count, email, prefix) {
  const { EmbeddedStorage } = dist('storage/embedded/embedded-storage');
  const { ALL_COLLECTIONS, DEVICES } = dist('storage/records');
  const { hashApiKey } = dist('registrations/api-keys');
  const storage = EmbeddedStorage.open(file, ALL_COLLECTIONS);
  const devices = storage.collection(DEVICES);
  const at = new Date();
  const keys = [];
  await storage.transaction(async () => {
    for (let i = 0; i < count; i++) {
      const id = `${prefix}-${String(i).padStart(5, '0')}`;
      const key = `svc_${randomBytes(24).toString('base64url')}`;
      keys.push(key);
      const info = { hostname: id, platform: 'linux', architecture: 'x86_64', os_version: 'Debian 12' };
      await devices.insert({ id, name: id, ownerScope: `user:${email}`, allowedScopes: [], shares: [], info, apiKeyHash: hashApiKey(key), createdAt: at, approvedBy: email, lastSeen: null, historySince: at });
    }
  });
  await storage.close();
  return keys;
}

function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body ? { ...headers, 'content-type': 'application/json' } : headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

/**
 * `node apps/server/dist/main.js` with `env`, ready once /health answers. BENCH_SERVER_ARGS adds
 * node flags for the server only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
 */
async function startServer(env) {
  const flags = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, join(ROOT, 'apps/server/dist/main.js')], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const health = `http://127.0.0.1:${env.REST_PORT}/health`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await request(health).then((r) => r.status === 200, () => false);
    if (ok) return { child, exited, stop: () => (child.kill('SIGTERM'), exited) };
    await sleep(50);
  }
}

/** The environment of a staging server on loopback with its data in `dir`. */
async function serverEnv(dir, issuer) {
  return {
    DATA_DIR: dir, OAUTH_ISSUER: issuer.issuer, OAUTH_AUDIENCE: issuer.audience, RUST_LOG: 'error',
    CERTIFICATE_PATH: join(dir, 'none'), LISTEN_HOST: '127.0.0.1', REST_PORT: String(await freePort()), UNIFIED_PORT: String(await freePort()),
    // Every simulated device dials from 127.0.0.1 (its discovery request too): one address, a
    // whole fleet, as behind a NAT.
    TUNNEL_MAX_CONNECTIONS_PER_ADDRESS: '100000',
    REST_MAX_CONNECTIONS_PER_ADDRESS: '100000',
    REST_MAX_CONNECTIONS: '100000',
  };
}

/**
 * A server on a fresh data directory `dir` with `count` devices of `email`'s seeded: their API
 * keys, the server, its URL, and `email`'s token from `issuer` (with its authorization header).
 * `env` overrides variables of the server's environment (e.g. LISTEN_HOST, PUBLIC_ADDRESS).
 */
async function startSeededServer(dir, issuer, { count, email, prefix, env: overrides = {} }) {
  const keys = await seedDevices(join(dir, 'svc.sqlite'), count, email, prefix);
  const env = { ...(await serverEnv(dir, issuer)), ...overrides };
  const server = await startServer(env);
  const token = issuer.token(email);
  return { keys, env, server, serverUrl: `http://127.0.0.1:${env.REST_PORT}`, token, auth: { authorization: `Bearer ${token}` } };
}

module.exports = { freePort, request, seedDevices, serverEnv, sleep, startSeededServer, startServer, until };
