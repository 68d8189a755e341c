/**
 * `svc events` end to end: the real binary follows the real server's event stream, prints one
 * line (or one JSON object) per event, reconnects where it left off when the stream drops, and
 * exits 0 on Ctrl-C.
 */
import type { ChildProcess } from 'node:child_process';
import { EventStreams } from '../apps/server/src/events/event-streams.service';
import { eventually } from './fixtures/eventually';
import { useFleet } from './fixtures/fleet';
import { collect, spawnSvc, svc } from './fixtures/svc-cli';

const ALICE = 'alice@cli-events.test';
const BOB = 'bob@cli-events.test';

describe('svc events (real binary)', () => {
  const fleet = useFleet({ users: { alice: ALICE, bob: BOB }, devices: { 'ce-1': { owner: 'alice' }, 'ce-2': { owner: 'bob' } } });
  const alice = () => fleet.user('alice');
  const share = (email: string) => alice().run('device_access_add', { device: 'ce-1', email_or_org_id: email, role: 'viewer' });
  const unshare = (email: string) => alice().run('device_access_remove', { device: 'ce-1', email_or_org_id: email });
  const streamsOf = (email: string) => fleet.server.app.get(EventStreams).stats().filter((s) => s.email === email).length;

  async function follow(args: string[]): Promise<{ child: ChildProcess; result: ReturnType<typeof collect>; stdout: () => string; stderr: () => string }> {
    const before = streamsOf(ALICE);
    const child = spawnSvc(alice().home, ['events', ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const result = collect(child, ['events', ...args], { timeoutMs: 120_000 });
    await eventually('svc events to connect', () => streamsOf(ALICE) > before, { describe: () => stderr });
    return { child, result, stdout: () => stdout, stderr: () => stderr };
  }

  it('--json prints one object per event as it happens and exits 0 on SIGINT', async () => {
    const run = await follow(['--json']);
    await share(BOB);
    await eventually('the event on stdout', () => run.stdout().includes('share_added'), { describe: run.stderr });
    run.child.kill('SIGINT');
    const { code, stdout } = await run.result;
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([expect.objectContaining({ type: 'access.changed', device_id: 'ce-1', device: 'ce-1', change: 'share_added', scope: `user:${BOB}`, at: expect.any(String) })]);
    await unshare(BOB);
  });

  it('prints one human line per event, filtered by --type, and resumes after a dropped stream without losing an event', async () => {
    const run = await follow(['--type', 'access.changed']);
    await share(BOB);
    await eventually('the first line', () => run.stdout().includes('share_added'), { describe: run.stderr });
    // The server drops every stream (as a restart would); what happens meanwhile comes on reconnect.
    await fleet.server.app.get(EventStreams).beforeApplicationShutdown();
    await unshare(BOB);
    await eventually('the event from before the reconnect', () => run.stdout().includes('share_removed'), { describe: () => `${run.stdout()}\n${run.stderr()}` });
    expect(run.stderr()).toContain('the event stream dropped');
    run.child.kill('SIGINT');
    const { code, stdout } = await run.result;
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}access\.changed {2}ce-1 \(ce-1\): share_added user:bob@cli-events\.test as viewer$/),
      expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}access\.changed {2}ce-1 \(ce-1\): share_removed user:bob@cli-events\.test$/),
    ]);
  });

  it('shows nothing of a device the user may not see', async () => {
    const run = await follow(['--json']);
    await fleet.user('bob').run('device_access_add', { device: 'ce-2', email_or_org_id: 'someone@cli-events.test', role: 'viewer' });
    await share(BOB);
    await eventually('alice to see her own device\'s event', () => run.stdout().includes('share_added'));
    run.child.kill('SIGINT');
    const { code, stdout } = await run.result;
    expect(code).toBe(0);
    expect(stdout).not.toContain('ce-2');
    await unshare(BOB);
  });

  it('refuses an unknown --type with a clear line', async () => {
    const result = await svc(alice().home, ['events', '--type', 'device.exploded']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Expected --type=device\.exploded to be one of/);
  });
});
