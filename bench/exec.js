/**
 * exec, end to end (issue 16 targets in brackets), against a server started as its own process
 * and a real runtime on the carrier BENCH_EXEC_TRANSPORT (tcp), each figure BENCH_ROUNDS (3) times:
 *   1. POST /api/exec of `true`, p50/p99 over BENCH_EXECS calls, vs spawning `true` locally in
 *      the same round [p50 ≤ 1.5×, p99 ≤ 3×]; with GET /health and an exec on an unknown device
 *      (the server's share without the tunnel) to show where the time goes;
 *   2. `svc exec <device> -- true` as a whole process (the real binary, its own HOME, signed in),
 *      BENCH_EXEC_CLI_RUNS runs, vs `ssh host true` to a throwaway loopback sshd [≤ 0.6×];
 *   3. output delay: a device command prints its clock every 20 ms; the time from that stamp to
 *      the moment this process reads the line from `svc exec`'s stdout (one machine, one clock)
 *      [≤ 5 ms].
 * BENCH_SERVER_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the server,
 * BENCH_RUNTIME_ARGS the runtime. BENCH_CLI_NODE runs the `svc` binary (sections 2 and 3) with another
 * node, e.g. Node 24's, while the server and runtime stay on this one (better-sqlite3 is built for it).
 * Run from a build: `node bench/exec.js` (or as part of `npm run bench`).
 */
const { spawn } = require('node:child_process');
const { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { startIssuer } = require('./device-listing');
const { request, sleep, startSeededServer } = require('./server-process');
const { startSshd } = require('./sshd');
const { percentile, rounds, spread, ROUNDS } = require('./spread');

const ROOT = join(__dirname, '..');
const BIN = join(ROOT, 'apps/cli/bin/run.js');
const EMAIL = 'exec@bench.test';
const DEVICE = 'ex-00000';
const EXECS = Number(process.env.BENCH_EXECS ?? 300);
const CLI_RUNS = Number(process.env.BENCH_EXEC_CLI_RUNS ?? 20);
const TRANSPORT = process.env.BENCH_EXEC_TRANSPORT ?? 'tcp';
const CLI_NODE = process.env.BENCH_CLI_NODE || process.execPath;
const RUNTIME_FLAGS = (process.env.BENCH_RUNTIME_ARGS ?? '').split(' ').filter(Boolean);
const TARGETS = { restP50: 1.5, restP99: 3, cli: 0.6, outputMs: 5 };

const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const now = () => performance.timeOrigin + performance.now();

async function timed(call, count) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await call();
    samples.push(ms(start));
  }
  return samples;
}

/** Runs `file args` to completion; rejects unless it exits 0. */
function run(file, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} ${args.join(' ')} exited ${code}: ${stderr}`))));
  });
}

async function startRuntime(dir, serverUrl, apiKey, auth) {
  const home = join(dir, 'runtime-home');
  mkdirSync(home);
  const child = spawn(process.execPath, [...RUNTIME_FLAGS, join(ROOT, 'apps/runtime/dist/main.js'), 'run', '--server', serverUrl, '--ca', join(dir, 'tls', 'cert.pem'), '--transport', TRANSPORT], {
    env: { ...process.env, SVC_API_KEY: apiKey, HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
    stdio: 'ignore',
  });
  for (;;) {
    const status = await request(`${serverUrl}/devices/${DEVICE}/status`, { headers: auth });
    if (status.status === 200 && JSON.parse(status.body).status === 'online') break;
    if (child.exitCode !== null) throw new Error(`runtime exited with ${child.exitCode}`);
    await sleep(100);
  }
  const carrier = () => JSON.parse(readFileSync(join(home, '.config/svc/runtime.status.json'), 'utf8')).carrier;
  return { child, carrier, rssMiB: () => rssMiB(child.pid) };
}

function rssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line.replace(/\D+/g, '')) / 1024;
}

/** A HOME for the `svc` binary, signed in as EMAIL with a token from the stand-in issuer. */
function cliEnv(dir, serverUrl, token) {
  const home = join(dir, 'cli-home');
  mkdirSync(join(home, '.config/svc'), { recursive: true });
  const credentials = { credentials: { OAuth2Token: { access_token: token, expires_at: Math.floor(Date.now() / 1000) + 3600 } } };
  writeFileSync(join(home, '.config/svc/credentials.json'), JSON.stringify(credentials), { mode: 0o600 });
  return { PATH: process.env.PATH, HOME: home, SVC_SERVER_URL: serverUrl, SVC_CA_FILE: join(dir, 'tls', 'cert.pem'), NO_COLOR: '1', TERM: 'dumb' };
}

/**
 * `svc exec` of a command printing `<clock ms>` every 20 ms, 50 lines: for each line, the time from
 * its stamp on the "device" to its arrival here through svc's stdout.
 */
function outputDelays(env) {
  const script = 'let n=0;const t=setInterval(()=>{process.stdout.write((performance.timeOrigin+performance.now()).toFixed(3)+"\\n");if(++n===50)clearInterval(t)},20)';
  return new Promise((resolve, reject) => {
    const child = spawn(CLI_NODE, [BIN, 'exec', DEVICE, '-n', '--', process.execPath, '-e', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const delays = [];
    let pending = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      const at = now();
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) delays.push(at - Number(line));
    });
    child.once('close', (code) => (code === 0 && delays.length === 50 ? resolve(delays) : reject(new Error(`svc exec (output delay) exited ${code} with ${delays.length} lines`))));
  });
}

async function benchExec() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-exec-'));
  const issuer = await startIssuer();
  const stops = [];
  try {
    const { keys: [key], server, serverUrl, token, auth } = await startSeededServer(dir, issuer, { count: 1, email: EMAIL, prefix: 'ex' });
    stops.push(() => server.stop());
    const runtime = await startRuntime(dir, serverUrl, key, auth);
    stops.push(() => runtime.child.kill());
    const cliNode = CLI_NODE === process.execPath ? process.version : require('node:child_process').execFileSync(CLI_NODE, ['--version'], { encoding: 'utf8' }).trim();
    console.log(`exec: one runtime on the ${runtime.carrier()} carrier (asked for ${TRANSPORT}), runtime RSS ${runtime.rssMiB().toFixed(0)} MiB; svc on node ${cliNode}; ${ROUNDS} rounds, median (min–max)`);

    const execOnce = async () => {
      const res = await request(`${serverUrl}/api/exec`, { method: 'POST', headers: auth, body: { device: DEVICE, command: ['true'] } });
      if (res.status !== 200 || JSON.parse(res.body).exit_code !== 0) throw new Error(`exec: ${res.status} ${res.body}`);
    };
    const spawnOnce = () => new Promise((resolve) => spawn('true').once('exit', resolve));
    // Where the time goes: an HTTP round trip to the server, and the server's share of an exec
    // without the tunnel (token, validation, authorization: an unknown device answers 404).
    const healthOnce = () => request(`${serverUrl}/health`);
    const unknownOnce = async () => {
      const res = await request(`${serverUrl}/api/exec`, { method: 'POST', headers: auth, body: { device: 'no-such-device', command: ['true'] } });
      if (res.status !== 404) throw new Error(`exec on an unknown device: ${res.status} ${res.body}`);
    };
    await timed(execOnce, 50);
    await timed(spawnOnce, 30);
    const rest = await rounds(async () => {
      const exec = await timed(execOnce, EXECS);
      const local = await timed(spawnOnce, EXECS);
      const health = await timed(healthOnce, EXECS);
      const unknown = await timed(unknownOnce, EXECS);
      const r = { execP50: percentile(exec, 50), execP99: percentile(exec, 99), spawnP50: percentile(local, 50), spawnP99: percentile(local, 99) };
      return { ...r, ratioP50: r.execP50 / r.spawnP50, ratioP99: r.execP99 / r.spawnP99, healthP50: percentile(health, 50), unknownP50: percentile(unknown, 50) };
    });
    const verdict = (ok) => (ok ? 'met' : 'MISSED');
    const worst = (values) => Math.max(...values);
    console.log(`POST /api/exec (true), ${EXECS} calls   p50 ${spread(rest.execP50)} ms  p99 ${spread(rest.execP99)} ms`);
    console.log(`  local spawn of true             p50 ${spread(rest.spawnP50)} ms  p99 ${spread(rest.spawnP99)} ms`);
    console.log(`  svc/spawn                       p50 ${spread(rest.ratioP50)}x  p99 ${spread(rest.ratioP99)}x   target p50 ≤ ${TARGETS.restP50}x (${verdict(worst(rest.ratioP50) <= TARGETS.restP50)}), p99 ≤ ${TARGETS.restP99}x (${verdict(worst(rest.ratioP99) <= TARGETS.restP99)})`);
    console.log(`  of which: GET /health p50 ${spread(rest.healthP50)} ms; POST /api/exec to an unknown device (no tunnel) p50 ${spread(rest.unknownP50)} ms`);

    const cli = cliEnv(dir, serverUrl, token);
    const svcOnce = () => run(CLI_NODE, [BIN, 'exec', DEVICE, '-n', '--', 'true'], cli);
    await timed(svcOnce, 2);
    if (existsSync('/usr/sbin/sshd')) {
      const sshd = await startSshd(dir);
      stops.push(() => sshd.stop());
      const sshOnce = () => run('ssh', [...sshd.clientOptions, '-p', String(sshd.port), `${sshd.user}@127.0.0.1`, 'true'], process.env);
      await timed(sshOnce, 2);
      const whole = await rounds(async () => {
        const svc = percentile(await timed(svcOnce, CLI_RUNS), 50);
        const ssh = percentile(await timed(sshOnce, CLI_RUNS), 50);
        return { svc, ssh, ratio: svc / ssh };
      });
      console.log(`svc exec ${DEVICE} -- true (whole process, ${CLI_RUNS} runs)   p50 ${spread(whole.svc, 0)} ms   ssh host true p50 ${spread(whole.ssh, 0)} ms   svc/ssh ${spread(whole.ratio)}x   target ≤ ${TARGETS.cli}x (${verdict(worst(whole.ratio) <= TARGETS.cli)})`);
    } else {
      const svc = await rounds(async () => ({ p50: percentile(await timed(svcOnce, CLI_RUNS), 50) }));
      console.log(`svc exec ${DEVICE} -- true (whole process, ${CLI_RUNS} runs)   p50 ${spread(svc.p50, 0)} ms   ssh: skipped, no /usr/sbin/sshd (apt-get install openssh-server)`);
    }

    const output = await rounds(async () => {
      const delays = await outputDelays(cli);
      return { p50: percentile(delays, 50), max: Math.max(...delays) };
    });
    console.log(`exec output, device write → svc stdout read (50 lines)   p50 ${spread(output.p50)} ms  max ${spread(output.max)} ms   target ≤ ${TARGETS.outputMs} ms (${verdict(worst(output.max) <= TARGETS.outputMs)})`);
  } finally {
    for (const stop of stops.reverse()) await stop();
    await issuer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { benchExec };

if (require.main === module) {
  benchExec().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
