/**
 * Cold start of the `svc` binary: `svc --version` and `svc --help` as a new process each time
 * (what a user's shell and shell completion pay), against `node -e 0` in the same run. Target:
 * p50 ≤ 300 ms on the reference machine.
 */
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { rounds, spread, ROUNDS } = require('./spread');

const BIN = join(__dirname, '../apps/cli/bin/run.js');
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 15);

function timeRuns(args) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], p90: times[Math.floor(times.length * 0.9)] };
}

async function benchCliStartup() {
  const commands = [['--version'], ['--help'], ['devices', 'list', '--help']];
  const figures = await rounds(async () => {
    const round = { baseline: timeRuns(['-e', '0']).p50 };
    commands.forEach((args, i) => {
      const svc = timeRuns([BIN, ...args]);
      Object.assign(round, { [`p50_${i}`]: svc.p50, [`p90_${i}`]: svc.p90, [`ratio_${i}`]: svc.p50 / round.baseline });
    });
    return round;
  });
  console.log(`cli cold start (${RUNS} runs each, ${ROUNDS} rounds)    node -e 0: p50 ${spread(figures.baseline, 0)} ms`);
  commands.forEach((args, i) => {
    const verdict = Math.max(...figures[`p50_${i}`]) <= 300 ? 'target ≤ 300 ms met' : 'target ≤ 300 ms MISSED';
    console.log(`  svc ${args.join(' ').padEnd(22)} p50 ${spread(figures[`p50_${i}`], 0)} ms  p90 ${spread(figures[`p90_${i}`], 0)} ms  (${spread(figures[`ratio_${i}`], 1)}x node -e 0; ${verdict})`);
  });
}

module.exports = { benchCliStartup };

if (require.main === module) benchCliStartup();
