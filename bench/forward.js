/**
 * Forward throughput (issue 7 targets in brackets): BENCH_FORWARD_MIB bytes pushed through a port
 * forward to a counting sink on the "device" (loopback), measured in one run for
 *   - direct loopback TCP (the ceiling),
 *   - `ssh -L` to a throwaway sshd (openssh-server, loopback, ed25519 keys in a temp dir),
 *   - svc over the TLS/TCP carrier [≥ 1.0× ssh -L],
 *   - svc over the QUIC carrier [≥ 100 MB/s, ≤ 10 ms CPU per MB] (a smaller transfer: BENCH_QUIC_MIB),
 * each BENCH_ROUNDS times (median and spread), through the CLI's LocalForwarder (its own process, as `svc forward`) → client streams →
 * relay (the server process) → a real runtime process.
 * The svc line also shows how long a small exec on another device took meanwhile (a carrier
 * must not stall other devices). Run from a build: `node bench/forward.js`.
 */
const { execFileSync, fork, spawn } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, chmodSync, existsSync } = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { startIssuer } = require('./device-listing');
const { treeCpuMs } = require('./proc-cpu');
const { freePort, request, sleep, startSeededServer } = require('./server-process');
const { percentile, rounds, ROUNDS, spread } = require('./spread');

const ROOT = join(__dirname, '..');
const EMAIL = 'forward@bench.test';
const MIB = Number(process.env.BENCH_FORWARD_MIB ?? 1024);
const QUIC_MIB = Number(process.env.BENCH_QUIC_MIB ?? 32);
/** Node flags for the runtime and client processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (the server's: BENCH_SERVER_ARGS). */
const CHILD_ARGS = (process.env.BENCH_CHILD_ARGS ?? '').split(' ').filter(Boolean);

/**
 * The device side: a sink that counts bytes and answers the count after the sender's FIN, or, for
 * a connection that opens with `PULL <bytes>\n`, a source that sends that many bytes and ends.
 */
function startSink() {
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    let received = 0;
    let pulling = false;
    socket.once('data', (first) => {
      const pull = /^PULL (\d+)\n/.exec(first.toString('latin1', 0, 32));
      if (pull) return void ((pulling = true), send(socket, Number(pull[1])));
      received += first.length;
      socket.on('data', (chunk) => (received += chunk.length));
    });
    socket.on('end', () => pulling || socket.end(String(received)));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Writes `total` bytes to `socket` under backpressure, then ends it. */
function send(socket, total) {
  const chunk = Buffer.alloc(256 * 1024, 0x5a);
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      sent += chunk.length;
      if (!socket.write(sent > total ? chunk.subarray(0, chunk.length - (sent - total)) : chunk)) return void socket.once('drain', pump);
    }
    socket.end();
  };
  pump();
}

/** Asks the device side for `mib` MiB through 127.0.0.1:`port` and resolves with MB/s once all of it arrived. */
function pull(port, mib) {
  const total = mib * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let received = 0;
    socket.on('connect', () => socket.end(`PULL ${total}\n`));
    socket.on('data', (d) => (received += d.length));
    socket.on('error', reject);
    socket.on('end', () => {
      if (received !== total) return reject(new Error(`got ${received} bytes, expected ${total}`));
      resolve(total / 1e6 / (Number(process.hrtime.bigint() - started) / 1e9));
    });
  });
}

/** Sends `mib` MiB to 127.0.0.1:`port` and resolves with MB/s once the far end confirmed the count. */
function push(port, mib) {
  const total = mib * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    socket.on('connect', () => send(socket, total));
    socket.on('data', (d) => (answer += d));
    socket.on('error', reject);
    socket.on('end', () => {
      if (Number(answer) !== total) return reject(new Error(`sink got ${answer} bytes, expected ${total}`));
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      resolve(total / 1e6 / seconds);
    });
  });
}

async function startSshd(dir) {
  const sshDir = join(dir, 'ssh');
  mkdirSync(sshDir);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'host')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'user')]);
  writeFileSync(join(sshDir, 'authorized_keys'), readFileSync(join(sshDir, 'user.pub')));
  chmodSync(join(sshDir, 'authorized_keys'), 0o600);
  const port = await freePort();
  const config = join(sshDir, 'sshd_config');
  writeFileSync(config, [`Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(sshDir, 'host')}`, `AuthorizedKeysFile ${join(sshDir, 'authorized_keys')}`, 'PasswordAuthentication no', 'StrictModes no', 'UsePAM no', 'Subsystem sftp internal-sftp', `PidFile ${join(sshDir, 'sshd.pid')}`, ''].join('\n'));
  mkdirSync('/run/sshd', { recursive: true });
  const sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: 'ignore' });
  await sleep(500);
  return { port, pid: sshd.pid, key: join(sshDir, 'user'), stop: () => sshd.kill() };
}

/** CPU ms the processes `pids` (and their descendants) spent since this call, once the returned function is called. */
function cpuMeter(pids) {
  const before = pids.map(treeCpuMs);
  const meter = () => meter.each().reduce((sum, ms) => sum + ms, 0);
  meter.each = () => pids.map((pid, i) => treeCpuMs(pid) - before[i]);
  return meter;
}

async function sshForward(sshd, targetPort) {
  const local = await freePort();
  const user = require('node:os').userInfo().username;
  const ssh = spawn('ssh', ['-N', '-L', `${local}:127.0.0.1:${targetPort}`, '-p', String(sshd.port), '-i', sshd.key, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-o', 'ExitOnForwardFailure=yes', `${user}@127.0.0.1`], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const ready = await new Promise((resolve) => net.connect(local, '127.0.0.1').on('connect', function () { this.destroy(); resolve(true); }).on('error', () => resolve(false)));
    if (ready) return { port: local, pid: ssh.pid, stop: () => ssh.kill() };
    await sleep(100);
  }
  ssh.kill();
  throw new Error('ssh -L did not come up');
}

/**
 * A real runtime process for device `id`, on the given carrier; resolves once the server lists it
 * online. `wrap` prefixes the command (e.g. `ip netns exec <ns>`: a runtime in another network namespace).
 */
async function startRuntime(dir, serverUrl, apiKey, id, transport, auth, wrap = []) {
  const home = join(dir, `home-${id}`);
  mkdirSync(home);
  const command = [...wrap, process.execPath, ...CHILD_ARGS, join(ROOT, 'apps/runtime/dist/main.js'), 'run', '--server', serverUrl, '--ca', join(dir, 'tls', 'cert.pem'), '--transport', transport];
  const child = spawn(command[0], command.slice(1), {
    env: { ...process.env, SVC_API_KEY: apiKey, HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
    stdio: 'ignore',
  });
  for (;;) {
    const status = await request(`${serverUrl}/devices/${id}/status`, { headers: auth });
    if (status.status === 200 && JSON.parse(status.body).status === 'online') return child;
    if (child.exitCode !== null) throw new Error(`runtime ${id} exited with ${child.exitCode}`);
    await sleep(100);
  }
}

/**
 * The times (ms) of small execs on `device` (by default another device, fw-00002) while `move`
 * runs: whether a carrier stalls other devices (apart from the CPU figures, which they would blur),
 * or, on the moving device itself, operations queued behind its bulk transfer. Resolves with
 * `move`'s result and the exec times.
 */
async function execsDuring(move, serverUrl, auth, device = 'fw-00002') {
  const times = [];
  let running = true;
  const execs = (async () => {
    while (running) {
      const t = process.hrtime.bigint();
      await request(`${serverUrl}/api/exec`, { method: 'POST', headers: auth, body: { device, command: ['true'] } });
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
      await sleep(50);
    }
  })();
  const result = await move();
  running = false;
  await execs;
  return { result, times };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-forward-'));
  const issuer = await startIssuer();
  const stops = [];
  try {
    const { keys, env, server, serverUrl, token, auth } = await startSeededServer(dir, issuer, { count: 3, email: EMAIL, prefix: 'fw' });
    stops.push(() => server.stop());
    const sink = await startSink();
    stops.push(() => sink.close());
    const sinkPort = sink.address().port;
    console.log(`forward throughput: ${MIB} MiB per run (QUIC ${QUIC_MIB} MiB), loopback, node ${process.version}; ${ROUNDS} rounds, median (min–max), each ratio against the same round's baseline`);
    const mb = (mib) => (mib * 1024 * 1024) / 1e6;

    let tunnel;
    let sshd;
    if (existsSync('/usr/sbin/sshd')) {
      sshd = await startSshd(dir);
      stops.push(() => sshd.stop());
      tunnel = await sshForward(sshd, sinkPort);
      stops.push(() => tunnel.stop());
    }
    const bystander = await startRuntime(dir, serverUrl, keys[2], 'fw-00002', 'tcp', auth);
    stops.push(() => bystander.kill());
    const carriers = (process.env.BENCH_FORWARD_CARRIERS ?? 'tcp,quic').split(',');
    const forwards = [];
    for (const [index, transport, mib] of [[0, 'tcp', MIB], [1, 'quic', QUIC_MIB]].filter(([, name]) => carriers.includes(name))) {
      const device = `fw-0000${index}`;
      const runtime = await startRuntime(dir, serverUrl, keys[index], device, transport, auth);
      stops.push(() => (runtime.kill(), new Promise((resolve) => (runtime.exitCode === null ? runtime.once('exit', resolve) : resolve()))));
      const args = { port: Number(env.UNIFIED_PORT), caFile: join(dir, 'tls', 'cert.pem'), token, device, targetPort: sinkPort };
      const client = fork(join(__dirname, 'forward-client.js'), [JSON.stringify(args)], { execArgv: CHILD_ARGS, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      stops.push(() => client.kill());
      const port = await new Promise((resolve) => client.once('message', resolve));
      await push(port, 8); // warm-up
      forwards.push({ transport, mib, port, pids: [client.pid, server.child.pid, runtime.pid] });
    }

    const figures = await rounds(async () => {
      const round = { direct: await push(sinkPort, MIB) };
      for (const [direction, move] of [['push', push], ['pull', pull]]) {
        if (!tunnel) continue;
        const cpu = cpuMeter([tunnel.pid, sshd.pid]);
        round[`ssh ${direction}`] = await move(tunnel.port, MIB);
        round[`ssh ${direction} cpu`] = cpu() / mb(MIB);
      }
      for (const { transport, mib, port, pids } of forwards) {
        for (const [direction, move] of [['push', push], ['pull', pull]]) {
          const cpu = cpuMeter(pids);
          const key = `${transport} ${direction}`;
          round[key] = await move(port, mib);
          round[`${key} cpu`] = cpu() / mb(mib);
          cpu.each().forEach((ms, i) => (round[`${key} cpu ${i}`] = ms / mb(mib)));
          if (tunnel) {
            round[`${key} vs ssh`] = round[key] / round[`ssh ${direction}`];
            round[`${key} cpu vs ssh`] = round[`${key} cpu`] / round[`ssh ${direction} cpu`];
          }
        }
        round[`${transport} exec worst`] = Math.max(0, ...(await execsDuring(() => push(port, mib), serverUrl, auth)).times);
      }
      return round;
    });

    const median = (values) => percentile(values, 50);
    console.log(`direct loopback TCP              ${spread(figures.direct, 0)} MB/s`);
    for (const direction of ['push', 'pull']) {
      if (!tunnel) continue;
      console.log(`ssh -L, ${direction}                     ${spread(figures[`ssh ${direction}`], 0)} MB/s   CPU ${spread(figures[`ssh ${direction} cpu`])} ms/MB`);
    }
    if (!tunnel) console.log('ssh -L                           skipped: no /usr/sbin/sshd (apt-get install openssh-server)');
    for (const { transport } of forwards) {
      for (const direction of ['push', 'pull']) {
        const key = `${transport} ${direction}`;
        const split = [0, 1, 2].map((i) => median(figures[`${key} cpu ${i}`]).toFixed(1)).join('/');
        const vsSsh = tunnel ? `   ${spread(figures[`${key} vs ssh`])}x ssh -L   CPU ${spread(figures[`${key} cpu`])} ms/MB = ${spread(figures[`${key} cpu vs ssh`])}x ssh's` : `   CPU ${spread(figures[`${key} cpu`])} ms/MB`;
        const target = transport === 'tcp' ? 'target ≥ 1.0x ssh -L, CPU ≤ 1.5x' : 'target ≥ 100 MB/s, CPU ≤ 10 ms/MB';
        console.log(`svc forward, ${transport.padEnd(4)} carrier, ${direction} ${spread(figures[key], 0)} MB/s${vsSsh} (client/server/runtime ${split})   (exec on another device meanwhile: worst ${spread(figures[`${transport} exec worst`], 0)} ms)   ${target}`);
      }
    }
  } finally {
    for (const stop of stops.reverse()) await stop();
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

module.exports = { benchForward: main, execsDuring, pull, push, startRuntime, startSink, startSshd };
