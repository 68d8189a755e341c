/**
 * File copy throughput and CPU: `svc cp` up to and down from a device (the real `svc` binary,
 * TCP carrier, a real runtime process) against `scp` to and from a throwaway sshd (loopback, temp
 * host key), BENCH_CP_MIB of random bytes each way, BENCH_ROUNDS times in one run [goal: ≥ 1.0× scp both ways, CPU
 * per MB ≤ 1.5× ssh's]. CPU is every process of each side: the client run to completion (`svc cp`,
 * or `scp` and its `ssh`), plus the server and runtime, or the sshd session and its sftp server.
 * Run from a build: `node bench/cp.js`; BENCH_CHILD_ARGS / BENCH_SERVER_ARGS add node flags (e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`) to the CLI and runtime / the server.
 */
const { spawn } = require('node:child_process');
const { randomFillSync } = require('node:crypto');
const { existsSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync, closeSync, writeFileSync } = require('node:fs');
const { tmpdir, userInfo } = require('node:os');
const { join } = require('node:path');
const { startIssuer } = require('./device-listing');
const { startRuntime, startSshd } = require('./forward');
const { reapedChildrenCpuMs, treeCpuMs } = require('./proc-cpu');
const { startSeededServer } = require('./server-process');
const { percentile, rounds, ROUNDS, spread } = require('./spread');

const ROOT = join(__dirname, '..');
const EMAIL = 'cp@bench.test';
const DEVICE = 'cp-00000';
const MIB = Number(process.env.BENCH_CP_MIB ?? 200);

function randomFile(path, mib) {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < mib; i++) writeSync(fd, randomFillSync(chunk));
  closeSync(fd);
}

/** Runs a client command to completion; answers seconds and CPU ms of it and of the far side's processes. */
function timed(command, args, env, farPids) {
  const cpuBefore = reapedChildrenCpuMs();
  const farBefore = farPids.map(treeCpuMs);
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) return reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
      const split = [reapedChildrenCpuMs() - cpuBefore, ...farPids.map((pid, i) => treeCpuMs(pid) - farBefore[i])];
      resolve({ seconds, cpuMs: split.reduce((sum, ms) => sum + ms, 0), split });
    });
  });
}

function expectSize(path, bytes) {
  const size = statSync(path).size;
  if (size !== bytes) throw new Error(`${path} has ${size} bytes, expected ${bytes}`);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-cp-'));
  const issuer = await startIssuer();
  const stops = [];
  try {
    const bytes = MIB * 1024 * 1024;
    const mb = bytes / 1e6;
    const source = join(dir, 'source.bin');
    randomFile(source, MIB);
    for (const sub of ['device', 'local', 'sshd-side']) mkdirSync(join(dir, sub));
    console.log(`file copy: ${MIB} MiB each way, loopback, node ${process.version}; ${ROUNDS} rounds, median (min–max), each ratio against the same round's scp`);

    let scp;
    if (existsSync('/usr/sbin/sshd')) {
      const sshd = await startSshd(dir);
      stops.push(() => sshd.stop());
      const opts = ['-q', '-P', String(sshd.port), '-i', sshd.key, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes'];
      scp = { opts, remote: `${userInfo().username}@127.0.0.1:`, pid: sshd.pid };
    } else {
      console.log('scp                              skipped: no /usr/sbin/sshd (apt-get install openssh-server)');
    }

    const { keys: [key], server, serverUrl, token, auth } = await startSeededServer(dir, issuer, { count: 1, email: EMAIL, prefix: 'cp' });
    stops.push(() => server.stop());
    const runtime = await startRuntime(dir, serverUrl, key, DEVICE, 'tcp', auth);
    stops.push(() => runtime.kill());
    const home = join(dir, 'cli');
    mkdirSync(join(home, '.config', 'svc'), { recursive: true });
    const credentials = { credentials: { OAuth2Token: { access_token: token, expires_at: Math.floor(Date.now() / 1000) + 3600 } } };
    writeFileSync(join(home, '.config', 'svc', 'credentials.json'), JSON.stringify(credentials), { mode: 0o600 });
    const cliEnv = { PATH: process.env.PATH, HOME: home, SVC_SERVER_URL: serverUrl, SVC_CA_FILE: join(dir, 'tls', 'cert.pem'), NO_COLOR: '1', TERM: 'dumb' };
    const svc = [...(process.env.BENCH_CHILD_ARGS ?? '').split(' ').filter(Boolean), join(ROOT, 'apps/cli/bin/run.js'), 'cp'];
    const far = [server.child.pid, runtime.pid];

    const figures = await rounds(async () => {
      const round = {};
      const record = (name, run, baseline) => {
        round[name] = mb / run.seconds;
        round[`${name} cpu`] = run.cpuMs / mb;
        run.split.forEach((ms, i) => (round[`${name} cpu ${i}`] = ms / mb));
        if (baseline) {
          round[`${name} vs scp`] = round[name] / (mb / baseline.seconds);
          round[`${name} cpu vs scp`] = run.cpuMs / baseline.cpuMs;
        }
      };
      let scpUp;
      let scpDown;
      if (scp) {
        scpUp = await timed('scp', [...scp.opts, source, `${scp.remote}${join(dir, 'sshd-side', 'up.bin')}`], process.env, [scp.pid]);
        expectSize(join(dir, 'sshd-side', 'up.bin'), bytes);
        record('scp up', scpUp);
        scpDown = await timed('scp', [...scp.opts, `${scp.remote}${join(dir, 'sshd-side', 'up.bin')}`, join(dir, 'local', 'scp-down.bin')], process.env, [scp.pid]);
        expectSize(join(dir, 'local', 'scp-down.bin'), bytes);
        record('scp down', scpDown);
      }
      const up = await timed(process.execPath, [...svc, source, `${DEVICE}:${join(dir, 'device', 'up.bin')}`], cliEnv, far);
      expectSize(join(dir, 'device', 'up.bin'), bytes);
      record('svc cp up, tcp carrier', up, scpUp);
      const down = await timed(process.execPath, [...svc, `${DEVICE}:${join(dir, 'device', 'up.bin')}`, join(dir, 'local', 'svc-down.bin')], cliEnv, far);
      expectSize(join(dir, 'local', 'svc-down.bin'), bytes);
      record('svc cp down, tcp carrier', down, scpDown);
      for (const leftover of [join(dir, 'device', 'up.bin'), join(dir, 'local', 'svc-down.bin'), join(dir, 'local', 'scp-down.bin'), join(dir, 'sshd-side', 'up.bin')]) rmSync(leftover, { force: true });
      return round;
    });

    for (const name of ['scp up', 'scp down', 'svc cp up, tcp carrier', 'svc cp down, tcp carrier']) {
      if (!figures[name]) continue;
      const svcRow = name.startsWith('svc');
      const parts = svcRow ? 3 : 2;
      const split = Array.from({ length: parts }, (_, i) => percentile(figures[`${name} cpu ${i}`], 50).toFixed(1)).join('/');
      const vs = figures[`${name} vs scp`] ? `   ${spread(figures[`${name} vs scp`])}x scp   CPU ${spread(figures[`${name} cpu vs scp`])}x scp's` : '';
      console.log(`${name.padEnd(32)} ${spread(figures[name], 0)} MB/s   CPU ${spread(figures[`${name} cpu`])} ms/MB (${svcRow ? 'client/server/runtime' : 'client/sshd'} ${split})${vs}`);
    }
    console.log(`${''.padEnd(32)} targets: ≥ 1.0x scp both ways, CPU ≤ 1.5x scp's`);
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

module.exports = { benchCp: main };
