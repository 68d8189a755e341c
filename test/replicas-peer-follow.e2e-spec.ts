/**
 * Issue 18, test 1 (deployment job logs `--follow`): a device whose tunnel replica B (a real server
 * process) holds, its job's log followed through replica A with the real `svc` binary. Each line
 * the job prints reaches svc's stdout exactly as printed, as it is printed; Ctrl-C ends the follow.
 * Then A stops (the same shutdown as on SIGTERM) with a follow still open through its peer hop: A
 * is gone within its drain window and a few seconds (an earlier build held it ~63 s), the open
 * follow is told it broke off, and B still serves the device.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { eventually } from './fixtures/eventually';
import { useReplicaFleet } from './fixtures/replica-fleet';
import { collect, spawnSvc } from './fixtures/svc-cli';

const ALICE = 'alice@replica-peer-follow.test';
const DEVICE = 'follow-1';
const DRAIN_SECS = 2;
/** A's drain window, plus the few seconds a stop takes on a loaded machine (NATS drain, the last writes); the bug took ~63 s. */
const STOP_WITHIN_MS = DRAIN_SECS * 1000 + 10_000;

describe('replicas on NATS: job logs --follow through the peer hop', () => {
  const fleet = useReplicaFleet({
    env: { DRAIN_SECS: String(DRAIN_SECS) },
    users: { alice: ALICE },
    devices: { [DEVICE]: { owner: 'alice', runtime: { on: 'b', env: { SVC_IMAGE_UPDATE_INTERVAL: 'off' }, readyLog: 'deployment channel open' } } },
  });
  const poke = () => join(fleet.dir, 'poke');
  /** The job's log as B serves it, by name (the device's holder). */
  const logOnB = async () => text(await fleet.user('alice').on('b').client.deploymentLogs(DEVICE, 'printer', { tail: 5 }));

  beforeAll(async () => {
    const alice = fleet.user('alice');
    await eventually('A to see the device B holds', async () => (await alice.on('a').route('device_status.one', { device: DEVICE })).status === 'online');
    // Prints "ready", then whatever the test puts in `poke`, once, when it does (taken by a rename
    // first, so a next poke landing while it prints is not removed unprinted).
    const printer = serviceJob('printer', { steps: [{ name: 'main', run: `echo ready; while :; do if mv ${poke()} ${poke()}.taken 2>/dev/null; then cat ${poke()}.taken; fi; sleep 0.1; done` }] });
    await alice.on('a').route('device_deploy.jobs', { device: DEVICE }, deployRequest([printer]));
    await eventually('the job to print', async () => (await logOnB()).includes('ready'));
  });

  /** `svc deployments logs <device> printer --follow --tail 1` against A; its stdout as it arrives. */
  function follow() {
    const child = spawnSvc(fleet.user('alice').home, ['deployments', 'logs', DEVICE, 'printer', '--follow', '--tail', '1']);
    const result = collect(child, ['deployments', 'logs']);
    let out = '';
    child.stdout!.on('data', (chunk: string) => (out += chunk));
    return { child, result, out: () => out };
  }

  /** Has the job print `line` (atomically: the job reads whole files only), and waits for `seen` to show it. */
  async function print(line: string, seen: () => string): Promise<void> {
    const staged = `${poke()}.tmp`;
    writeFileSync(staged, `${line}\n`);
    renameSync(staged, poke());
    await eventually(`"${line}" through A`, () => seen().endsWith(`${line}\n`), { describe: () => `svc printed so far: ${JSON.stringify(seen())}` });
  }

  it('prints each line the job writes, as it writes it and exactly (svc on A, the device on B); Ctrl-C ends it with exit 0', async () => {
    const followed = follow();
    await eventually('the tail through A', () => followed.out() === 'ready\n', { describe: () => JSON.stringify(followed.out()) });
    const lines = ['first line', 'zweite Zeile: äöü €', '\ttabbed\tand spaced  ', 'x'.repeat(5000)];
    // One at a time: each must be on svc's stdout before the job has the next (so each arrived by itself, as printed).
    for (const line of lines) await print(line, followed.out);
    expect(followed.out()).toBe(['ready', ...lines].map((line) => `${line}\n`).join(''));
    followed.child.kill('SIGINT');
    expect(await followed.result).toMatchObject({ code: 0, stderr: '' });
  });

  it('A stops promptly with a follow open through its peer hop: the follow is told it broke off (exit 2), and B keeps serving the device', async () => {
    const followed = follow();
    // Through the tail or as it is printed: either way the follow is open through A once it shows.
    await print('before the stop', followed.out);
    const started = Date.now();
    await fleet.a.close();
    expect(Date.now() - started).toBeLessThan(STOP_WITHIN_MS);
    const ended = await followed.result;
    expect(ended.code).toBe(2);
    expect(ended.stderr).toMatch(/The log of printer broke off/);
    // B, which holds the device, still serves its log.
    expect(await logOnB()).toContain('before the stop');
  });
});
