/**
 * Would a spawn helper ("zygote") make the runtime's exec cheaper? (issue 16, docs/performance.md,
 * "Exec".) Alternating call by call, it times a spawn of `true` the way the runtime spawns
 * (detached, stdout and stderr piped) from this process, grown to BENCH_SPAWN_RSS_MIB (the runtime
 * is ~58 MiB), against asking a small Node helper (--max-semi-space-size=1 --max-old-space-size=16)
 * to do the same spawn over IPC. The helper relays no output, so its figure is a lower bound on
 * what a real zygote would cost. Not part of `npm run bench`: `node bench/spawn-helper.js`.
 */
const { fork, spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { percentile, rounds, spread, ROUNDS } = require('./spread');

const CALLS = Number(process.env.BENCH_SPAWN_CALLS ?? 300);
const TARGET_RSS_MIB = Number(process.env.BENCH_SPAWN_RSS_MIB ?? 58);
const OPTIONS = { detached: true, stdio: ['ignore', 'pipe', 'pipe'] };

const rssMiB = (pid) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024;
const elapsed = async (call) => {
  const start = process.hrtime.bigint();
  await call();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

function helperMain() {
  process.on('message', ({ id }) => spawn('true', [], OPTIONS).once('close', () => process.send({ id })));
  process.send('ready');
}

async function benchSpawnHelper() {
  const ballast = [];
  while (rssMiB(process.pid) < TARGET_RSS_MIB) ballast.push(new Array(10000).fill({ n: ballast.length }));
  const helper = fork(__filename, ['--helper'], { execArgv: ['--max-semi-space-size=1', '--max-old-space-size=16'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((resolve) => helper.once('message', resolve));
  const waiting = new Map();
  let nextId = 0;
  helper.on('message', ({ id }) => waiting.get(id)());
  const direct = () => new Promise((resolve) => spawn('true', [], OPTIONS).once('close', resolve));
  const viaHelper = () => new Promise((resolve) => {
    const id = ++nextId;
    waiting.set(id, () => (waiting.delete(id), resolve()));
    helper.send({ id });
  });
  for (let i = 0; i < 30; i++) await elapsed(direct), await elapsed(viaHelper);
  const figures = await rounds(async () => {
    const own = [];
    const helped = [];
    for (let i = 0; i < CALLS; i++) {
      own.push(await elapsed(direct));
      helped.push(await elapsed(viaHelper));
    }
    return { own: percentile(own, 50), helped: percentile(helped, 50), ratio: percentile(helped, 50) / percentile(own, 50), rss: rssMiB(process.pid), helperRss: rssMiB(helper.pid) };
  });
  console.log(`spawn of true, ${CALLS} calls alternated, ${ROUNDS} rounds, node ${process.version}: median (min–max)`);
  console.log(`  from this process (RSS ${spread(figures.rss, 0)} MiB)        p50 ${spread(figures.own)} ms`);
  console.log(`  asked of a helper over IPC (RSS ${spread(figures.helperRss, 0)} MiB)  p50 ${spread(figures.helped)} ms   helper/own ${spread(figures.ratio)}x`);
  helper.kill();
}

if (process.argv[2] === '--helper') helperMain();
else benchSpawnHelper();
