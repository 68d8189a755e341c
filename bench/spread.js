/**
 * Rounds and spreads for the benchmarks: each figure is measured BENCH_ROUNDS (3) times in one run,
 * and printed as its median round with the spread (min–max) of the rounds.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function percentile(samples, p) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** `values` (one per round) as "median (min–max)" with `digits` decimals. */
function spread(values, digits = 2) {
  const f = (n) => n.toFixed(digits);
  return `${f(percentile(values, 50))} (${f(Math.min(...values))}–${f(Math.max(...values))})`;
}

/** Runs `round(i)` ROUNDS times; answers each key of its results as an array over the rounds. */
async function rounds(round) {
  const results = [];
  for (let i = 0; i < ROUNDS; i++) results.push(await round(i));
  const keys = Object.keys(results[0]);
  return Object.fromEntries(keys.map((key) => [key, results.map((r) => r[key])]));
}

/** Whether BENCH_ONLY (a comma list of section names) selects `section`; unset selects all. */
function selected(section) {
  const only = process.env.BENCH_ONLY;
  return !only || only.split(',').map((s) => s.trim()).includes(section);
}

module.exports = { ROUNDS, percentile, rounds, selected, spread };
