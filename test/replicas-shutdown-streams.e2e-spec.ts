/**
 * SIGTERM of the replica a caller's long-lived streams go through, for a device another replica
 * holds: the streams are cut (each caller told, none left hanging) and the replica exits within
 * its drain window plus a few seconds. The device stays where it is. Replica B (a real server
 * process) is the one stopped; the device's runtime (a real process) is tunnelled to A.
 */
import type { ClientHttp2Stream } from 'node:http2';
import { text as readText } from 'node:stream/consumers';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { eventually } from './fixtures/eventually';
import { EventStreamReader, openEventStream } from './fixtures/event-stream';
import { startEchoServer, TargetServer } from './fixtures/forward-targets';
import { useReplicaFleet } from './fixtures/replica-fleet';
import { openShell, ShellSession } from '../apps/cli/src/sdk/shell-session';

const ALICE = 'alice@replica-shutdown.test';
const DEVICE = 'stop-1';
/** A device B itself holds: its streams end with its tunnel, which B closes before its REST server waits for its requests. */
const LOCAL = 'stop-local';
const DRAIN_SECS = 2;
/** The drain window, plus the few seconds a stop takes on a loaded machine (the bug took ~63 s). */
const STOP_WITHIN_MS = DRAIN_SECS * 1000 + 10_000;

describe('replicas on NATS: SIGTERM with long-lived streams through the peer hop', () => {
  const noImageUpdates = { SVC_IMAGE_UPDATE_INTERVAL: 'off' };
  const fleet = useReplicaFleet({
    env: { DRAIN_SECS: String(DRAIN_SECS) },
    users: { alice: ALICE },
    devices: {
      [DEVICE]: { owner: 'alice', runtime: { on: 'a', env: noImageUpdates, readyLog: 'deployment channel open' } },
      [LOCAL]: { owner: 'alice', runtime: { on: 'b', env: noImageUpdates } },
    },
  });
  let echo: TargetServer;
  const alice = () => fleet.user('alice');

  beforeAll(async () => {
    echo = await startEchoServer({ host: '127.0.0.1' });
    const ticker = serviceJob('ticker', { steps: [{ name: 'main', run: 'while true; do echo tick; sleep 0.2; done' }] });
    await alice().on('a').route('device_deploy.jobs', { device: DEVICE }, deployRequest([ticker]));
    await eventually('B to see the device A holds', async () => (await alice().on('b').route('device_status.one', { device: DEVICE })).status === 'online');
  });

  afterAll(async () => {
    await echo?.close();
  });

  /** Job logs `--follow` through B, by name: resolves with how the follow ended once B is gone. */
  async function followThroughB(): Promise<{ ticks: () => number; ended: Promise<'end' | 'error'> }> {
    const res = await alice().on('b').client.deploymentLogs(DEVICE, 'ticker', { follow: true, tail: 1 });
    let text = '';
    const ended = (async () => {
      try {
        for await (const chunk of res) text += String(chunk);
        return 'end' as const;
      } catch {
        return 'error' as const;
      }
    })();
    const ticks = () => text.split('\n').filter((line) => line === 'tick').length;
    await eventually('ticks through B', () => ticks() >= 2);
    return { ticks, ended };
  }

  /** An NDJSON exec through B: its answer is open while the command runs (raw HTTP: the streamed NDJSON answer is the REST contract under test). */
  function streamedExec(device: string): { started: Promise<unknown>; ended: Promise<string> } {
    let text = '';
    const ended = fetch(`${fleet.b.url}/api/exec`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice().caller.token}`, 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({ device, command: ['sh', '-c', 'echo started; exec sleep 600'] }),
    }).then(async (res) => {
      try {
        for await (const chunk of res.body!) text += Buffer.from(chunk).toString();
        return /"exit_code"/.test(text) ? 'answered' : 'ended without an exit';
      } catch {
        return 'cut';
      }
    }, () => 'cut');
    return { started: eventually(`the exec on ${device} to start`, () => text.includes('started')), ended };
  }

  it('cuts job logs --follow, NDJSON execs (a device there and one held here), a shell, a forward and an event stream, and exits within its drain window', async () => {
    const streams = await alice().on('b').client.streams();
    const follow = await followThroughB();
    const execAnswer = streamedExec(DEVICE);
    const localExec = streamedExec(LOCAL);
    await Promise.all([execAnswer.started, localExec.started]);
    const shell: ShellSession = await openShell(streams, DEVICE, { cols: 80, rows: 24 });
    const shellEnded = shell.exit.then(() => 'exited', () => 'cut');
    shell.output.resume();
    const forward: ClientHttp2Stream = await streams.openForward(DEVICE, { kind: 'tcp', host: '127.0.0.1', port: echo.port });
    const forwardClosed = new Promise<void>((resolve) => forward.once('close', resolve));
    forward.on('error', () => undefined);
    forward.resume();
    forward.write('hello');
    const events: EventStreamReader = await openEventStream(fleet.b.url, alice().caller);

    const b = fleet.b.child;
    const exited = new Promise<number>((resolve) => b.once('exit', () => resolve(Date.now())));
    const stoppedAt = Date.now();
    b.kill('SIGTERM');
    const guard = setTimeout(() => b.kill('SIGKILL'), 60_000);
    const exitedAt = await exited;
    clearTimeout(guard);

    // On its own (not the guard's SIGKILL), within the drain window and a few seconds.
    expect(b.signalCode).not.toBe('SIGKILL');
    expect(exitedAt - stoppedAt).toBeLessThan(STOP_WITHIN_MS);
    // Every caller was told: the follow and the exec cut (no clean end: a lost server is not the end of the log), the others closed.
    expect(await follow.ended).toBe('error');
    expect(await execAnswer.ended).not.toBe('answered');
    expect(await localExec.ended).not.toBe('answered');
    expect(await shellEnded).toBe('cut');
    await forwardClosed;
    await events.ended;
    // The device stayed on A, whose follow still works.
    expect((await alice().on('a').route('device_status.one', { device: DEVICE })).status).toBe('online');
    const log = await readText(await alice().on('a').client.deploymentLogs(DEVICE, 'ticker', { tail: 3 }));
    expect(log).toContain('tick');
  }, 120_000);
});
