/**
 * Replicas on NATS (issue 18): server processes from the build on one NATS and one shared SQLite
 * file, runtimes behind a plain TCP balancer.
 *   1. The peer hop: replicas A, B and C; one real runtime process dials the balancer in front of B
 *      and C, so A never holds it. Forward throughput (BENCH_REPLICA_MIB, push and pull, through the
 *      CLI's LocalForwarder as in forward.js) and POST /api/exec p50 (BENCH_EXECS) through A against
 *      the same on the holder: A/holder ratios.
 *   2. Failover: the holder killed with SIGKILL; the time until an exec through A succeeds on the
 *      device (it reconnected to the other replica). The killed replica is restarted for the next
 *      round, whose holder is then the other one.
 *   3. Scale (issue 18 test 12): 3 replicas, BENCH_REPLICA_TUNNELS (3,000) tunnel clients behind a
 *      round-robin balancer; each round one replica is killed with SIGKILL: the time until every
 *      device it held is online again on the others [≤ 30 s], then it is restarted.
 * Each figure BENCH_ROUNDS (3) times: median (min–max). Run from a build: `node bench/replicas.js`.
 */
const { fork, spawn } = require('node:child_process');
const { mkdirSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { startIssuer } = require('./device-listing');
const { pull, push, startSink } = require('./forward');
const { rehome, startBalancer, startNats, startReplicaFleet, startReplicas, until } = require('./replica-fleet');
const { request, seedDevices } = require('./server-process');
const { percentile, rounds, ROUNDS, spread } = require('./spread');

const ROOT = join(__dirname, '..');
const EMAIL = 'replicas@bench.test';
const MIB = Number(process.env.BENCH_REPLICA_MIB ?? 256);
const EXECS = Number(process.env.BENCH_EXECS ?? 300);
const TUNNELS = Number(process.env.BENCH_REPLICA_TUNNELS ?? 3000);
/** Issue 18, test 12. */
const REHOME_TARGET_S = 30;

async function execP50(replica, auth, device) {
  const samples = [];
  for (let i = 0; i < EXECS; i++) {
    const started = process.hrtime.bigint();
    const res = await request(`${replica.url}/api/exec`, { method: 'POST', headers: auth, body: { device, command: ['true'] } });
    if (res.status !== 200) throw new Error(`exec through ${replica.id}: ${res.status} ${res.body}`);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return percentile(samples, 50);
}

async function forwardClient(replica, caFile, token, device, targetPort) {
  const args = { port: replica.tunnelPort, caFile, token, device, targetPort };
  const client = fork(join(__dirname, 'forward-client.js'), [JSON.stringify(args)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise((resolve) => client.once('message', resolve));
  return { port, stop: () => client.kill() };
}

async function peerHopAndFailover(issuer) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-replicas-'));
  const stops = [];
  try {
    const [key] = await seedDevices(join(dir, 'svc.sqlite'), 1, EMAIL, 'rp');
    const device = 'rp-00000';
    const auth = { authorization: `Bearer ${issuer.token(EMAIL)}` };
    const nats = await startNats();
    stops.push(() => nats.stop());
    const [a, b, c] = await startReplicas(dir, issuer, nats.url, 3);
    stops.push(() => Promise.all([a, b, c].map((r) => r.stop())));
    // The runtime's tunnel goes to B, or to C while B is down: never to A.
    const balancer = await startBalancer(() => [b, c].filter((r) => r.alive()).map((r) => r.tunnelPort), { roundRobin: false });
    stops.push(() => balancer.close());
    const caFile = join(dir, 'tls', 'cert.pem');
    const home = join(dir, 'runtime');
    mkdirSync(home);
    const runtime = spawn(process.execPath, [join(ROOT, 'apps/runtime/dist/main.js'), 'run', '--server', a.url, '--ca', caFile, '--transport', 'tcp', '--tunnel', `127.0.0.1:${balancer.port}`], {
      env: { ...process.env, SVC_API_KEY: key, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), SVC_IMAGE_UPDATE_INTERVAL: 'off' },
      stdio: 'ignore',
    });
    stops.push(() => runtime.kill());
    const execWorks = async (replica) => (await request(`${replica.url}/api/exec`, { method: 'POST', headers: auth, body: { device, command: ['true'] } }).catch(() => ({ status: 0 }))).status === 200;
    await until(() => execWorks(a), 60_000, () => 'the device to answer through A');
    const sink = await startSink();
    stops.push(() => sink.close());
    const clients = {};
    for (const replica of [a, b, c]) {
      clients[replica.id] = await forwardClient(replica, caFile, issuer.token(EMAIL), device, sink.address().port);
      stops.push(() => clients[replica.id].stop());
      await push(clients[replica.id].port, 8).catch(() => undefined); // warm-up (C holds nothing yet)
    }
    console.log(`peer hop: replicas A, B, C on one NATS and one SQLite file; one runtime behind a balancer over B and C; ${MIB} MiB per transfer, ${EXECS} execs per figure; ${ROUNDS} rounds, median (min–max)`);
    let holder = b;
    const figures = await rounds(async () => {
      const through = clients[a.id].port;
      const direct = clients[holder.id].port;
      const round = {
        pushA: await push(through, MIB), pushHolder: await push(direct, MIB),
        pullA: await pull(through, MIB), pullHolder: await pull(direct, MIB),
        execA: await execP50(a, auth, device), execHolder: await execP50(holder, auth, device),
      };
      const survivor = holder === b ? c : b;
      const killedAt = Date.now();
      await holder.kill();
      await until(() => execWorks(a), 120_000, () => `an exec through A after ${holder.id} was killed`, 50);
      round.failoverS = (Date.now() - killedAt) / 1000;
      await holder.restart();
      await push(clients[holder.id].port, 1).catch(() => undefined); // its forward client reconnects
      holder = survivor;
      return round;
    });
    const ratio = (x, y) => figures[x].map((v, i) => v / figures[y][i]);
    console.log(`  forward push   through A ${spread(figures.pushA, 0)} MB/s   on the holder ${spread(figures.pushHolder, 0)} MB/s   A/holder ${spread(ratio('pushA', 'pushHolder'))}x`);
    console.log(`  forward pull   through A ${spread(figures.pullA, 0)} MB/s   on the holder ${spread(figures.pullHolder, 0)} MB/s   A/holder ${spread(ratio('pullA', 'pullHolder'))}x`);
    console.log(`  exec p50       through A ${spread(figures.execA)} ms   on the holder ${spread(figures.execHolder)} ms   A/holder ${spread(ratio('execA', 'execHolder'))}x`);
    console.log(`  failover       holder killed (SIGKILL) → exec through A answers: ${spread(figures.failoverS, 1)} s`);
  } finally {
    for (const stop of stops.reverse()) await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function scale(issuer) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-replica-scale-'));
  const stops = [];
  try {
    const world = await startReplicaFleet({ dir, issuer, runtimes: TUNNELS, email: EMAIL, prefix: 'rs', upWithinMs: 300_000 });
    stops.push(() => world.stop());
    const { replicas, tunnels, fleet, ids, auth } = world;
    console.log(`scale: 3 replicas, ${TUNNELS} tunnel clients (runtime tunnel loop only) behind a round-robin balancer, all up from cold in ${world.coldSeconds.toFixed(1)} s; ${ROUNDS} rounds, median (min–max)`);
    const figures = await rounds(async (i) => {
      const victim = replicas[i % replicas.length];
      const witness = replicas[(i + 1) % replicas.length];
      const survivors = replicas.filter((replica) => replica !== victim);
      const { seconds, moved } = await rehome({ fleet, balancer: tunnels, victim, witness, auth, ids, survivors, deadlineMs: 300_000 });
      await victim.restart();
      return { seconds, moved };
    });
    console.log(`  one replica killed (SIGKILL): its ${spread(figures.moved, 0)} devices online again on the others in ${spread(figures.seconds, 1)} s   target ≤ ${REHOME_TARGET_S} s`);
  } finally {
    for (const stop of stops.reverse()) await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const issuer = await startIssuer();
  try {
    if ((process.env.BENCH_REPLICA_PARTS ?? 'hop,scale').includes('hop')) await peerHopAndFailover(issuer);
    if ((process.env.BENCH_REPLICA_PARTS ?? 'hop,scale').includes('scale')) await scale(issuer);
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

module.exports = { benchReplicas: main };
