/**
 * Two network namespaces joined by an emulated device link, for bench/carrier-links.js:
 *   server ns (SERVER_IP): the server, the CLI side and the benchmark itself;
 *   device ns (DEVICE_IP): the runtime and the forward target.
 * The link is two TUN devices joined by bench/link-emulator.py (delay, random loss and a rate cap,
 * each direction on its own), because this kind of machine may have no `sch_netem` for `tc`.
 * Everything is created under names holding this process's pid and removed by `remove()`,
 * including any process still running in the namespaces.
 */
const { execFileSync, spawn } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const SERVER_IP = '10.99.0.1';
const DEVICE_IP = '10.99.0.2';

function run(command, args) {
  return execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
}

/** Why this machine cannot run the link benchmark, or undefined when it can. */
function linkBenchUnavailable() {
  if (process.platform !== 'linux') return 'needs Linux network namespaces';
  if (process.getuid?.() !== 0) return 'needs root (network namespaces, TUN devices)';
  if (!existsSync('/dev/net/tun')) return 'needs /dev/net/tun';
  for (const [tool, args] of [['ip', ['-V']], ['python3', ['--version']]]) {
    try {
      run(tool, args);
    } catch {
      return `needs \`${tool}\` (apt-get install ${tool === 'ip' ? 'iproute2' : 'python3'})`;
    }
  }
  return undefined;
}

/**
 * Creates the namespaces; TCP in both uses congestion control `cc` (cubic: Linux's default, what a
 * device runs), which a namespace may only choose when the host allows it: the host's
 * `tcp_allowed_congestion_control` gets `cc` added for the run and restored by `remove()`.
 */
function createNamespaces(cc) {
  const tag = `svcb${process.pid}`;
  const names = { server: `${tag}s`, device: `${tag}d` };
  const allowedKey = 'net.ipv4.tcp_allowed_congestion_control';
  const allowedBefore = run('sysctl', ['-n', allowedKey]);
  const removals = [];
  const remove = () => {
    for (const undo of removals.reverse()) {
      try {
        undo();
      } catch (error) {
        console.error(`link bench clean-up: ${error.message}`);
      }
    }
    removals.length = 0;
  };
  try {
    for (const ns of Object.values(names)) {
      run('ip', ['netns', 'add', ns]);
      removals.push(() => {
        // Processes this run left in the namespace (a crashed round): stop them, then the namespace.
        for (const pid of run('ip', ['netns', 'pids', ns]).split('\n').filter(Boolean)) process.kill(Number(pid), 'SIGKILL');
        run('ip', ['netns', 'del', ns]);
      });
      run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    }
    if (!allowedBefore.split(' ').includes(cc)) {
      run('sysctl', ['-w', `${allowedKey}=${allowedBefore} ${cc}`]);
      removals.push(() => run('sysctl', ['-w', `${allowedKey}=${allowedBefore}`]));
    }
    for (const ns of Object.values(names)) run('ip', ['netns', 'exec', ns, 'sysctl', '-w', `net.ipv4.tcp_congestion_control=${cc}`]);
  } catch (error) {
    remove();
    throw error;
  }
  return { names, remove };
}

/**
 * Starts the link emulator (run this inside the server namespace) and joins the two namespaces
 * with it. `set(rttMs, lossPct, mbit)` changes the link (mbit 0: no cap); `stop()` ends it.
 */
async function startLink(deviceNs) {
  const [serverTun, deviceTun] = ['svl0', 'svl1'];
  const emulator = spawn('python3', [join(__dirname, 'link-emulator.py'), serverTun, deviceTun], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  let waiting;
  let buffered = '';
  emulator.stdout.on('data', (data) => {
    buffered += data;
    for (let end; (end = buffered.indexOf('\n')) >= 0; buffered = buffered.slice(end + 1)) lines.push(buffered.slice(0, end));
    waiting?.();
  });
  const next = async () => {
    while (lines.length === 0) {
      if (emulator.exitCode !== null) throw new Error(`link emulator exited with ${emulator.exitCode}`);
      await new Promise((resolve) => ((waiting = resolve), setTimeout(resolve, 1000)));
    }
    return lines.shift();
  };
  if ((await next()) !== 'ready') throw new Error('link emulator did not start');
  run('ip', ['link', 'set', deviceTun, 'netns', deviceNs]);
  run('ip', ['addr', 'add', SERVER_IP, 'peer', DEVICE_IP, 'dev', serverTun]);
  run('ip', ['link', 'set', serverTun, 'up']);
  run('ip', ['-n', deviceNs, 'addr', 'add', DEVICE_IP, 'peer', SERVER_IP, 'dev', deviceTun]);
  run('ip', ['-n', deviceNs, 'link', 'set', deviceTun, 'up']);
  const ask = async (line) => (emulator.stdin.write(`${line}\n`), next());
  return {
    set: (rttMs, lossPct, mbit) => ask(`${rttMs} ${lossPct} ${mbit}`),
    /** Packets per direction (server→device, device→server): sent/lost/dropped at the queue. */
    stats: () => ask('stats'),
    stop: () => (emulator.stdin.end(), new Promise((resolve) => (emulator.exitCode === null ? emulator.once('exit', resolve) : resolve()))),
  };
}

module.exports = { DEVICE_IP, SERVER_IP, createNamespaces, linkBenchUnavailable, startLink };
