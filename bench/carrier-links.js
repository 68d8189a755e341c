/**
 * The two carriers on device-like links (`BENCH_ONLY=links`): what `auto` should choose. The
 * runtime and the forward target run in one network namespace, the server, the CLI side and this
 * benchmark in another, joined by an emulated link (bench/link-namespaces.js: delay, random loss
 * each way, a rate cap). For each link in BENCH_LINKS and each round, with one runtime on
 * `--transport tcp` and one on `--transport quic`:
 *   - forward push and pull throughput (bench/forward.js's push/pull through a real forward),
 *   - exec round trip p50 with the link idle, and while a pull fills the device's uplink
 *     (operations queued behind a bulk transfer on the same tunnel),
 *   - QUIC/TCP ratios of each, in the same round;
 * and on one link (BENCH_LINK_BURST_AT) the time an exec takes to get through once the link comes
 * back from a total loss of BENCH_LINK_BURST_S seconds. Needs root; says why and skips otherwise.
 *   BENCH_LINKS: comma list of rtt ms/loss %/rate Mbit (0: none)/MiB moved per transfer
 *   BENCH_LINK_TCP_CC: TCP congestion control in both namespaces (cubic, Linux's default)
 *   BENCH_LINK_EXECS: sequential execs per carrier and round for the idle exec figure (20)
 */
const { fork, spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { loadavg, tmpdir } = require('node:os');
const { join } = require('node:path');
const { startIssuer } = require('./device-listing');
const { execsDuring, pull, push, startRuntime } = require('./forward');
const { SERVER_IP, createNamespaces, linkBenchUnavailable, startLink } = require('./link-namespaces');
const { request, sleep, startSeededServer } = require('./server-process');
const { percentile, rounds, spread } = require('./spread');

const LINKS = (process.env.BENCH_LINKS ?? '20/0/100/32,50/0/50/16,50/0.5/50/4,50/2/50/2').split(',').map((spec) => {
  const [rttMs, lossPct, mbit, mib] = spec.split('/').map(Number);
  return { rttMs, lossPct, mbit, mib };
});
const CC = process.env.BENCH_LINK_TCP_CC ?? 'cubic';
const EXECS = Number(process.env.BENCH_LINK_EXECS ?? 20);
const BURST_AT = Number(process.env.BENCH_LINK_BURST_AT ?? 1);
const BURST_S = Number(process.env.BENCH_LINK_BURST_S ?? 10);
const CARRIERS = ['tcp', 'quic'];
const load = () => loadavg()[0].toFixed(1);

/** One exec of `true`; its time in ms, or undefined when the server did not run it (device offline, link down). */
async function execOnce(serverUrl, auth, device) {
  const started = process.hrtime.bigint();
  const answer = await request(`${serverUrl}/api/exec`, { method: 'POST', headers: auth, body: { device, command: ['true'] } }).catch(() => undefined);
  return answer?.status === 200 ? Number(process.hrtime.bigint() - started) / 1e6 : undefined;
}

/** Execs on `device` one after another, from now until one gets through: resolves with the time (ms since epoch) it did. */
async function firstExecThrough(serverUrl, auth, device, limitS = 120) {
  const started = Date.now();
  while (Date.now() - started < limitS * 1000) {
    if ((await execOnce(serverUrl, auth, device)) !== undefined) return Date.now();
    await sleep(100);
  }
  return Infinity;
}

const linkName = ({ rttMs, lossPct, mbit }) => `rtt ${rttMs} ms, loss ${lossPct} % each way, ${mbit > 0 ? `${mbit} Mbit/s` : 'no rate cap'}`;

/** A fresh runtime on `--transport auto` over the link as it is: the carrier it settles on, and why. */
async function autoChoice(world, device, key) {
  const { dir, serverUrl, auth, deviceNs } = world;
  const runtime = await startRuntime(dir, serverUrl, key, device, 'auto', auth, ['ip', 'netns', 'exec', deviceNs]);
  try {
    await sleep(3000); // time to move to TCP if the server is near
    const status = JSON.parse((await request(`${serverUrl}/devices/${device}/status`, { headers: auth })).body);
    return `${status.carrier}${status.carrier_note ? ` (${status.carrier_note})` : ''}`;
  } finally {
    runtime.kill();
  }
}

async function measureLink(link, spec, forwards, serverUrl, auth) {
  await link.set(spec.rttMs, spec.lossPct, spec.mbit);
  const startLoad = load();
  const figures = await rounds(async (round) => {
    const figure = {};
    for (const forward of round % 2 === 0 ? forwards : [...forwards].reverse()) {
      const { carrier, device, port } = forward;
      figure[`${carrier} push`] = await push(port, spec.mib);
      const during = await execsDuring(() => pull(port, spec.mib), serverUrl, auth, device);
      figure[`${carrier} pull`] = during.result;
      figure[`${carrier} exec during pull`] = percentile(during.times, 50);
      const idle = [];
      for (let i = 0; i < EXECS; i++) idle.push(await execOnce(serverUrl, auth, device));
      figure[`${carrier} exec`] = percentile(idle.filter((t) => t !== undefined), 50);
      figure[`${carrier} exec failed`] = idle.filter((t) => t === undefined).length;
    }
    for (const key of ['push', 'pull', 'exec', 'exec during pull']) figure[`ratio ${key}`] = figure[`quic ${key}`] / figure[`tcp ${key}`];
    return figure;
  });
  console.log(`link: ${linkName(spec)}; TCP congestion control ${CC}; ${spec.mib} MiB per transfer; load average ${startLoad} → ${load()}`);
  for (const [key, unit, digits] of [['push', 'MB/s', 2], ['pull', 'MB/s', 2], ['exec', 'ms', 1], ['exec during pull', 'ms', 1]]) {
    const label = key.startsWith('exec') ? `exec p50${key === 'exec' ? ', link idle' : ', during pull'}` : `forward ${key}`;
    const cells = CARRIERS.map((carrier) => `${carrier} ${spread(figures[`${carrier} ${key}`], digits)} ${unit}`).join('   ');
    console.log(`  ${label.padEnd(22)} ${cells}   quic/tcp ${spread(figures[`ratio ${key}`])}x`);
  }
  const failed = CARRIERS.map((carrier) => figures[`${carrier} exec failed`].reduce((a, b) => a + b, 0));
  if (failed.some((n) => n > 0)) console.log(`  execs that failed      tcp ${failed[0]}   quic ${failed[1]}`);
  console.log(`  link emulator packets (sent/lost/queue-dropped, server→device device→server): ${await link.stats()}`);
}

/**
 * Total loss for BURST_S while execs are tried one after another (the first is in flight when the
 * link goes), then the link as `spec`: seconds from the link's return until an exec got through.
 */
async function measureBurst(link, spec, forwards, serverUrl, auth) {
  const figures = await rounds(async () => {
    const figure = {};
    for (const { carrier, device } of forwards) {
      await link.set(spec.rttMs, 100, spec.mbit);
      const through = firstExecThrough(serverUrl, auth, device);
      await sleep(BURST_S * 1000);
      await link.set(spec.rttMs, spec.lossPct, spec.mbit);
      const back = Date.now();
      figure[carrier] = Math.max(0, (await through) - back) / 1000;
      const status = await request(`${serverUrl}/devices/${device}/status`, { headers: auth });
      figure[`${carrier} uptime`] = JSON.parse(status.body).uptime ?? NaN;
    }
    figure.ratio = figure.quic / Math.max(figure.tcp, 0.01);
    return figure;
  });
  console.log(`loss burst: ${BURST_S} s of 100 % loss on "${linkName(spec)}", execs tried throughout, time from the link's return until one got through; load average ${load()}`);
  const cells = CARRIERS.map((carrier) => `${carrier} ${spread(figures[carrier], 1)} s (tunnel up ${spread(figures[`${carrier} uptime`], 0)} s: ${figures[`${carrier} uptime`].some((s) => s < BURST_S) ? 'reconnected' : 'survived'})`).join('   ');
  console.log(`  back after the burst   ${cells}   quic/tcp ${spread(figures.ratio)}x`);
}

/** Runs inside the server namespace (started by `benchCarrierLinks`). */
async function inside() {
  const deviceNs = process.env.BENCH_LINK_DEVICE_NS;
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-links-'));
  const issuer = await startIssuer();
  const stops = [() => issuer.close(), () => rmSync(dir, { recursive: true, force: true })];
  const stopChild = (child) => () => (child.kill(), new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve())));
  try {
    const link = await startLink(deviceNs);
    stops.push(() => link.stop());
    await link.set(LINKS[0].rttMs, 0, LINKS[0].mbit);
    const email = 'links@bench.test';
    const { keys, env, server, token, auth } = await startSeededServer(dir, issuer, { count: 2 + LINKS.length, email, prefix: 'ln', env: { LISTEN_HOST: '0.0.0.0', PUBLIC_ADDRESS: SERVER_IP } });
    stops.push(() => server.stop());
    const serverUrl = `http://${SERVER_IP}:${env.REST_PORT}`;
    const startSink = `require(${JSON.stringify(join(__dirname, 'forward.js'))}).startSink().then((s) => console.log(s.address().port))`;
    const sink = spawn('ip', ['netns', 'exec', deviceNs, process.execPath, '-e', startSink], { stdio: ['ignore', 'pipe', 'inherit'] });
    stops.push(stopChild(sink));
    const sinkPort = await new Promise((resolve) => sink.stdout.once('data', (data) => resolve(Number(String(data).trim()))));
    const forwards = [];
    for (const [index, carrier] of CARRIERS.entries()) {
      const device = `ln-0000${index}`;
      const runtime = await startRuntime(dir, serverUrl, keys[index], device, carrier, auth, ['ip', 'netns', 'exec', deviceNs]);
      stops.push(stopChild(runtime));
      const args = { port: Number(env.UNIFIED_PORT), caFile: join(dir, 'tls', 'cert.pem'), token, device, targetPort: sinkPort };
      const client = fork(join(__dirname, 'forward-client.js'), [JSON.stringify(args)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      stops.push(stopChild(client));
      const port = await new Promise((resolve) => client.once('message', resolve));
      await push(port, 1); // warm-up
      const status = JSON.parse((await request(`${serverUrl}/devices/${device}/status`, { headers: auth })).body);
      if (status.carrier !== carrier) throw new Error(`${device} is on ${status.carrier}, not ${carrier}`);
      forwards.push({ carrier, device, port });
    }
    console.log(`carriers on device links: runtime in its own network namespace, link emulated in user space (TUN), node ${process.version}; median (min–max) of the rounds, ratios within each round`);
    for (const [index, spec] of LINKS.entries()) {
      await measureLink(link, spec, forwards, serverUrl, auth);
      console.log(`  --transport auto on this link settles on: ${await autoChoice({ dir, serverUrl, auth, deviceNs }, `ln-${String(2 + index).padStart(5, "0")}`, keys[2 + index])}`);
      if (index === BURST_AT && BURST_S > 0) await measureBurst(link, spec, forwards, serverUrl, auth);
    }
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

/** Sets up the namespaces, runs the measurements inside the server's, and removes everything. */
async function benchCarrierLinks() {
  const why = linkBenchUnavailable();
  if (why) return void console.log(`carrier links: skipped: ${why}`);
  const { names, remove } = createNamespaces(CC);
  const interrupted = () => (remove(), process.exit(130));
  process.once('SIGINT', interrupted);
  try {
    const child = spawn('ip', ['netns', 'exec', names.server, process.execPath, __filename, '--inside'], { stdio: 'inherit', env: { ...process.env, BENCH_LINK_DEVICE_NS: names.device } });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`the link benchmark exited with ${code}`);
  } finally {
    process.off('SIGINT', interrupted);
    remove();
  }
}

if (require.main === module) {
  (process.argv[2] === '--inside' ? inside() : benchCarrierLinks()).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { benchCarrierLinks };
