/**
 * Several server replicas on one NATS and one shared embedded SQLite file, each its own process
 * from the build, behind a plain L4 balancer (what HAProxy in `mode tcp` does), and a fleet of
 * light tunnel clients (bench/fleet-worker.js, `client: 'tunnel'`) in a few worker processes: for
 * bench/replicas.js and test/replicas-scale.e2e-spec.ts. `rehome` kills a replica with SIGKILL and
 * times until every device it held is online again on the others.
 */
const { fork, spawn } = require('node:child_process');
const { existsSync, mkdtempSync, rmSync } = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { freePort, request, seedDevices, serverEnv, sleep, startServer, until } = require('./server-process');

/** Debian installs nats-server in /usr/sbin, which is not on every user's PATH. */
function natsServerBinary() {
  for (const dir of (process.env.PATH ?? '').split(':').concat('/usr/sbin', '/usr/bin', '/usr/local/bin')) {
    if (dir && existsSync(join(dir, 'nats-server'))) return join(dir, 'nats-server');
  }
  throw new Error('nats-server is not installed (Debian: apt-get install nats-server)');
}

/** nats-server with JetStream on a free loopback port and a temporary store; ready once it says so. */
async function startNats() {
  const store = mkdtempSync(join(tmpdir(), 'svc-nats-'));
  const port = await freePort();
  const child = spawn(natsServerBinary(), ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', store], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let waited = 0; !/Server is ready/.test(log); waited += 50) {
    if (child.exitCode !== null || waited > 30_000) throw new Error(`nats-server did not start: ${log}`);
    await sleep(50);
  }
  return { url: `nats://127.0.0.1:${port}`, stop: async () => (child.kill('SIGTERM'), await exited, rmSync(store, { recursive: true, force: true })) };
}

/**
 * A TCP balancer on a free port: each connection goes to a backend that accepts it, spliced byte
 * for byte. `roundRobin` rotates the first choice per connection; otherwise the first of
 * `backends()` that accepts. `held(port)` counts the connections open to a backend now.
 */
async function startBalancer(backends, { roundRobin = true } = {}) {
  const open = new Set();
  const perBackend = new Map();
  let turn = 0;
  const server = net.createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    client.pause();
    const ports = backends();
    const start = roundRobin ? turn++ % Math.max(1, ports.length) : 0;
    const order = [...ports.slice(start), ...ports.slice(0, start)];
    void (async () => {
      for (const port of order) {
        const backend = await new Promise((resolve) => {
          const socket = net.connect(port, '127.0.0.1');
          socket.once('connect', () => resolve(socket));
          socket.once('error', () => resolve(null));
        });
        if (!backend) continue;
        open.add(backend);
        perBackend.set(port, (perBackend.get(port) ?? 0) + 1);
        backend.on('close', () => {
          open.delete(backend);
          perBackend.set(port, perBackend.get(port) - 1);
          client.destroy();
        });
        backend.on('error', () => backend.destroy());
        client.on('close', () => backend.destroy());
        client.pipe(backend);
        backend.pipe(client);
        client.resume();
        return;
      }
      client.destroy();
    })();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    held: (port) => perBackend.get(port) ?? 0,
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * `count` replicas on the data directory `dir` (seeded beforehand) and NATS at `natsUrl`: the
 * first starts alone (it writes the server secret and the tunnel certificate the others read).
 * Each: `url`, `restPort`, `tunnelPort`, `child`, `kill()` (SIGKILL, resolves once gone),
 * `restart()` (same ports), `stop()`.
 */
async function startReplicas(dir, issuer, natsUrl, count, env = {}) {
  const make = async (i) => {
    const replicaEnv = { ...(await serverEnv(dir, issuer)), NATS_URL: natsUrl, REPLICA_ID: `replica-${i}`, PEER_PORT: String(await freePort()), PEER_ADDRESS: '127.0.0.1', ...env };
    const replica = {
      id: replicaEnv.REPLICA_ID,
      env: replicaEnv,
      url: `http://127.0.0.1:${replicaEnv.REST_PORT}`,
      restPort: Number(replicaEnv.REST_PORT),
      tunnelPort: Number(replicaEnv.UNIFIED_PORT),
      server: null,
      get child() {
        return replica.server.child;
      },
      alive: () => replica.server !== null && replica.server.child.exitCode === null && replica.server.child.signalCode === null,
      async kill() {
        replica.server.child.kill('SIGKILL');
        await replica.server.exited;
      },
      async restart() {
        replica.server = await startServer(replicaEnv);
      },
      async stop() {
        if (replica.alive()) await replica.server.stop();
      },
    };
    await replica.restart();
    return replica;
  };
  const first = await make(0);
  const rest = await Promise.all(Array.from({ length: count - 1 }, (_, i) => make(i + 1)));
  return [first, ...rest];
}

/**
 * `keys.length` tunnel clients over `workers` processes, dialing `tunnel` ("host:port"), with
 * discovery (QUIC key only) at `serverUrl`. `state` says per device whether its tunnel is up;
 * `downs` counts lost tunnels since the start.
 */
function startTunnelFleet({ keys, serverUrl, caFile, tunnel, dir, workers = 4 }) {
  const state = new Array(keys.length).fill(false);
  const fleet = { state, downs: 0, failures: [], children: [], upCount: () => state.filter(Boolean).length };
  const perWorker = Math.ceil(keys.length / workers);
  for (let w = 0; w < workers; w++) {
    const offset = w * perWorker;
    const args = JSON.stringify({ serverUrl, caFile, keys: keys.slice(offset, offset + perWorker), dir: join(dir, `w${w}`), transport: 'tcp', client: 'tunnel', tunnel });
    const child = fork(join(__dirname, 'fleet-worker.js'), [args], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.on('message', (m) => {
      if (m.up !== undefined) state[offset + m.up] = true;
      if (m.down !== undefined) (state[offset + m.down] = false), fleet.downs++;
      if (m.failed !== undefined) fleet.failures.push(`device ${offset + m.failed}: ${m.error}`);
    });
    fleet.children.push(child);
  }
  fleet.stop = async () => {
    fleet.children.forEach((child) => child.connected && child.send('stop'));
    await Promise.all(fleet.children.map((child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve)))));
  };
  return fleet;
}

/** How many of `ids` `replica` lists online (device_status, batches of 100). */
async function onlineCount(replica, auth, ids) {
  let online = 0;
  for (let i = 0; i < ids.length; i += 100) {
    const res = await request(`${replica.url}/devices/status`, { method: 'POST', headers: auth, body: { devices: ids.slice(i, i + 100) } });
    if (res.status !== 200) return -1;
    online += JSON.parse(res.body).results.filter((item) => item.status === 'online').length;
  }
  return online;
}

/** The default admin key of a staging server (GET /metrics is behind it). */
const ADMIN_KEY = 'svc-default-admin-key-change-me';

/** Tunnels `replica` holds itself (svc_tunnels of its GET /metrics, every carrier), or -1. */
async function heldTunnels(replica) {
  const res = await request(`${replica.url}/metrics`, { headers: { 'x-admin-key': ADMIN_KEY } }).catch(() => ({ status: 0 }));
  if (res.status !== 200) return -1;
  return res.body.split('\n').filter((line) => line.startsWith('svc_tunnels{')).reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/**
 * Kills `victim` with SIGKILL and times until the surviving replicas hold every device's tunnel
 * themselves (their own svc_tunnels add up to all of `ids`), every tunnel client is up, and
 * `witness` (a survivor) lists every device of `ids` online: `{ seconds, moved }`, `moved` being
 * the tunnels the balancer had open to the victim. The survivors' own counts, not the balancer's
 * or the clients': a connection the balancer counted may have been a client's handshake still
 * under way (not a device that moved), and a witness may list the victim's devices online until
 * their entries expire.
 */
async function rehome({ fleet, balancer, victim, witness, auth, ids, survivors, deadlineMs }) {
  const moved = balancer.held(victim.tunnelPort);
  const started = Date.now();
  await victim.kill();
  let held = [];
  await until(
    async () => {
      held = await Promise.all(survivors.map(heldTunnels));
      return held.reduce((a, b) => a + b, 0) === ids.length && fleet.upCount() === ids.length && (await onlineCount(witness, auth, ids)) === ids.length;
    },
    deadlineMs,
    () => `survivors hold ${held.join(' + ')} of ${ids.length} tunnels, ${fleet.upCount()}/${ids.length} clients up`,
  );
  return { seconds: (Date.now() - started) / 1000, moved };
}

/**
 * The whole world of a fleet over replicas, in the data directory `dir` (the caller's): `runtimes`
 * devices of `email` seeded (ids `<prefix>-00000`…), NATS, `count` replicas (`env` added to each),
 * round-robin balancers over the running replicas' tunnel and REST ports, and the tunnel fleet
 * dialing the tunnel balancer. Resolves once every tunnel is up (within `upWithinMs`) with
 * `{ replicas, tunnels, fleet, ids, auth, coldSeconds, stop }`; `stop()` ends all of it.
 */
async function startReplicaFleet({ dir, issuer, runtimes, email, prefix, count = 3, env = {}, workers, upWithinMs }) {
  const stops = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    const keys = await seedDevices(join(dir, 'svc.sqlite'), runtimes, email, prefix);
    const nats = await startNats();
    stops.push(() => nats.stop());
    const replicas = await startReplicas(dir, issuer, nats.url, count, env);
    stops.push(() => Promise.all(replicas.map((replica) => replica.stop())));
    const live = () => replicas.filter((replica) => replica.alive());
    const tunnels = await startBalancer(() => live().map((replica) => replica.tunnelPort));
    stops.push(() => tunnels.close());
    const rest = await startBalancer(() => live().map((replica) => replica.restPort));
    stops.push(() => rest.close());
    const started = Date.now();
    const fleet = startTunnelFleet({ keys, serverUrl: `http://127.0.0.1:${rest.port}`, caFile: join(dir, 'tls', 'cert.pem'), tunnel: `127.0.0.1:${tunnels.port}`, dir, workers });
    stops.push(() => fleet.stop());
    await until(() => fleet.upCount() === runtimes, upWithinMs, () => `${fleet.upCount()}/${runtimes} tunnels up; ${fleet.failures.slice(0, 3).join('; ')}`, 200);
    const ids = keys.map((_, i) => `${prefix}-${String(i).padStart(5, '0')}`);
    return { replicas, tunnels, fleet, ids, auth: { authorization: `Bearer ${issuer.token(email)}` }, coldSeconds: (Date.now() - started) / 1000, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

module.exports = { onlineCount, rehome, startBalancer, startNats, startReplicaFleet, startReplicas, startTunnelFleet, until };
