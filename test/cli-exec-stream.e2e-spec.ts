/**
 * `svc exec` behaves like `ssh host cmd`, end to end (the real binary, server and runtime):
 * output streams as produced with stderr apart, stdin goes up with its end, binary data and any
 * size pass byte for byte, and --json has no size limit. Batches stream pdsh-style prefixed
 * lines, and a timed-out batch item carries `error`. `svc docker` runs the local docker CLI on
 * the user's own stdio (a stand-in `docker` on PATH here; the engine socket is a listening stub:
 * test/docker.e2e-spec.ts has the real engine).
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { useFleet } from './fixtures/fleet';
import { CliHome, collect, spawnSvc, svc } from './fixtures/svc-cli';
import type { TestServer } from './fixtures/test-server';

const ALICE = 'alice@cli-exec-stream.test';
const BOB = 'bob@cli-exec-stream.test';
/** Resolves once `text` has appeared on `stream` (read alongside the test's own collector). */
function seen(stream: Readable, text: string): Promise<void> {
  return new Promise((resolve) => {
    let got = '';
    const onData = (chunk: Buffer | string) => {
      got += chunk.toString();
      if (!got.includes(text)) return;
      stream.off('data', onData);
      resolve();
    };
    stream.on('data', onData);
  });
}

describe('svc exec streams like ssh (real binary, real runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-exec-stream-'));
  const engineSocket = join(dir, 'engine.sock');
  let engine: Server;
  // Declared before the fleet, so that it runs first: the engine stub listens before the runtime starts.
  beforeAll(async () => {
    engine = createServer((socket) => socket.on('error', () => undefined).end());
    await new Promise<void>((resolve) => engine.listen(engineSocket, resolve));
  });
  const fleet = useFleet({
    users: { alice: ALICE, bob: BOB, mallory: 'mallory@cli-exec-stream.test' },
    devices: { 'ex-1': { owner: 'alice', shares: { bob: 'viewer' }, runtime: { args: ['--docker-socket', engineSocket] } }, 'ex-off': { owner: 'alice' } },
  });
  let server: TestServer;
  let alice: CliHome;
  let bob: CliHome;
  let mallory: CliHome;

  beforeAll(() => {
    server = fleet.server;
    alice = fleet.user('alice').home;
    bob = fleet.user('bob').home;
    mallory = fleet.user('mallory').home;
  });
  // Declared after the fleet, so that it runs after it: the runtime stops before the engine stub.
  afterAll(() => {
    engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('one device', () => {
    it('prints stdout and stderr raw, each on its own stream, and exits with the remote code', async () => {
      const result = await svc(alice, ['exec', 'ex-1', '--', 'sh', '-c', 'printf "one\\033[31m\\n"; echo two >&2; exit 7']);
      expect(result).toMatchObject({ code: 7, stdout: 'one\x1b[31m\n', stderr: 'two\n' });
    });

    it('prints output as the command produces it, not when it ends', async () => {
      const gate = join(dir, 'streaming-gate');
      const child = spawnSvc(alice, ['exec', 'ex-1', '--', 'sh', '-c', `echo first; echo early >&2; while [ ! -e ${gate} ]; do sleep 0.1; done; echo second`]);
      const done = collect(child, ['exec']);
      await Promise.all([seen(child.stdout!, 'first\n'), seen(child.stderr!, 'early\n')]);
      writeFileSync(gate, '');
      expect(await done).toMatchObject({ code: 0, stdout: 'first\nsecond\n', stderr: 'early\n' });
    });

    it('sends stdin to the command and delivers its end', async () => {
      expect(await svc(alice, ['exec', 'ex-1', '--', 'cat'], { input: 'x\n' })).toMatchObject({ code: 0, stdout: 'x\n', stderr: '' });
      expect(await svc(alice, ['exec', 'ex-1', '--', 'wc', '-c'], { input: '' })).toMatchObject({ code: 0, stdout: '0\n' });
      // -n, as ssh -n: the command gets no stdin even though svc's is piped.
      expect(await svc(alice, ['exec', 'ex-1', '-n', '--', 'cat'], { input: 'not sent\n' })).toMatchObject({ code: 0, stdout: '' });
    });

    it('round-trips 20 MiB of binary stdin through cat byte for byte (no 16 MiB cut)', async () => {
      const payload = randomBytes(20 * 1024 * 1024);
      const child = spawnSvc(alice, ['exec', 'ex-1', '--', 'cat']);
      const chunks: Buffer[] = [];
      child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.stdin!.end(payload);
      const [code] = (await once(child, 'close')) as [number];
      expect(code).toBe(0);
      const received = Buffer.concat(chunks);
      expect(received.length).toBe(payload.length);
      expect(received.equals(payload)).toBe(true);
    }, 120_000);

    it('prints --json of any size (17 MB of output)', async () => {
      const result = await svc(alice, ['exec', 'ex-1', '--json', '--', 'sh', '-c', 'yes 0123456789abcdef | head -c 17000000'], { timeoutMs: 120_000 });
      expect(result.code).toBe(0);
      const answer = JSON.parse(result.stdout) as { output: string; exit_code: number; timed_out: boolean };
      expect(answer).toMatchObject({ exit_code: 0, timed_out: false });
      expect(answer.output.length).toBe(17_000_000);
      expect(answer.output.startsWith('0123456789abcdef\n0123456789abcdef\n')).toBe(true);
    }, 120_000);

  });

  describe('the exec stream', () => {
    it('is audited as device.exec with the argv, never stdin', async () => {
      expect(await svc(alice, ['exec', 'ex-1', '--', 'cat'], { input: 'secret-input\n' })).toMatchObject({ code: 0 });
      const answer = await fleet.user('alice').route('device_audit_logs.one', { device: 'ex-1', max: 1000 });
      const entries = (answer.logs as { action: string; details: string; user: string }[]).filter((e) => e.action === 'device.exec');
      expect(entries).toEqual(expect.arrayContaining([expect.objectContaining({ user: ALICE, details: 'exec: cat' })]));
      expect(JSON.stringify(answer)).not.toContain('secret-input');
    });

    it('refuses a viewer (403) and a stranger (not found), with one line and no output', async () => {
      const viewer = await svc(bob, ['exec', 'ex-1', '--', 'id']);
      expect(viewer).toMatchObject({ stdout: '' });
      expect(viewer.code).not.toBe(0);
      expect(viewer.stderr.trim().split('\n')).toHaveLength(1);
      expect(viewer.stderr).toMatch(/^Error: .*(denied|forbidden|permission|not allowed)/i);
      const stranger = await svc(mallory, ['exec', 'ex-1', '--', 'id']);
      expect(stranger).toMatchObject({ code: 2, stdout: '' });
      expect(stranger.stderr).toMatch(/^Error: .*not found/i);
    });

    it('refuses arguments the runtime would refuse (400) before reaching the device', async () => {
      const result = await svc(alice, ['exec', 'ex-off', '--timeout', '100000', '--', 'true']);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(/^Error: timeout_secs must be/);
    });

    it('stops the remote command and exits 141 when its own stdout is closed', async () => {
      // Without stopping, this would run for 10 minutes, far past the test's own timeout.
      const child = spawnSvc(alice, ['exec', 'ex-1', '--timeout', '600', '--', 'yes']);
      child.stderr!.resume();
      await new Promise((resolve) => child.stdout!.once('data', resolve));
      child.stdout!.destroy();
      const [code] = (await once(child, 'close')) as [number | null];
      expect(code).toBe(141);
    });
  });

  describe('a batch', () => {
    it('prefixes every line per device, stderr lines on stderr, and exits with the worst code', async () => {
      const result = await svc(alice, ['exec', '--devices', 'ex-1,ex-off', '--', 'sh', '-c', 'echo a; echo c >&2; printf b; exit 3']);
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('ex-1: a\nex-1: b\n');
      expect(result.stderr).toMatch(/^ex-off: error: .*offline/im);
      expect(result.stderr).toMatch(/^ex-1: c$/m);
      expect(result.stderr).toContain('ex-1: exit code 3');
    });

    it('streams batch lines as each device produces them', async () => {
      const gate = join(dir, 'batch-gate');
      const child = spawnSvc(alice, ['exec', '--devices', 'ex-1', '--', 'sh', '-c', `echo first; while [ ! -e ${gate} ]; do sleep 0.1; done; echo second`]);
      const done = collect(child, ['exec']);
      await seen(child.stdout!, 'ex-1: first\n');
      writeFileSync(gate, '');
      expect(await done).toMatchObject({ code: 0, stdout: 'ex-1: first\nex-1: second\n' });
    });

    it('stops and exits 141 when its own stdout is closed', async () => {
      const child = spawnSvc(alice, ['exec', '--devices', 'ex-1', '--timeout', '600', '--', 'yes']);
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      await new Promise((resolve) => child.stdout!.once('data', resolve));
      child.stdout!.destroy();
      const [code] = (await once(child, 'close')) as [number | null];
      expect(stderr).toBe('');
      expect(code).toBe(141);
    });

    it('gives a timed-out batch item an error besides its partial output (REST and --json)', async () => {
      const command = ['sh', '-c', 'echo partial; sleep 30'];
      const rest = (await fleet.user('alice').run('device_exec', { devices: ['ex-1'], command, timeout_secs: 1 })) as { results: { exit_code: number }[] };
      const expected = { device: 'ex-1', output: 'partial\n', exit_code: expect.any(Number), timed_out: true, error: 'timed out after 1 s' };
      expect(rest.results).toEqual([expected]);
      const cli = await svc(alice, ['exec', '--devices', 'ex-1', '--json', '--timeout', '1', '--', ...command]);
      expect(JSON.parse(cli.stdout).results).toEqual([expected]);
      expect(cli.code).toBe(rest.results[0].exit_code);
    });

  });

  describe('svc docker', () => {
    /** A `docker` on PATH running `script` (sh), so the local side is what is tested. */
    function withDocker(script: string): Record<string, string> {
      const bin = mkdtempSync(join(dir, 'bin-'));
      mkdirSync(bin, { recursive: true });
      writeFileSync(join(bin, 'docker'), `#!/bin/sh\n${script}\n`);
      chmodSync(join(bin, 'docker'), 0o755);
      return { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` };
    }

    it('runs docker on the terminal: output as produced, stderr apart, stdin read, exit code passed', async () => {
      const gate = join(dir, 'docker-gate');
      const env = withDocker(`echo first; echo "host $DOCKER_HOST" >&2; while [ ! -e ${gate} ]; do sleep 0.1; done; cat; exit 5`);
      const child = spawnSvc(alice, ['docker', 'ex-1', '--', 'run', '-i', 'alpine', 'cat'], { env });
      const done = collect(child, ['docker'], { input: 'typed\n' });
      await Promise.all([seen(child.stdout!, 'first\n'), seen(child.stderr!, 'host unix://')]);
      writeFileSync(gate, '');
      const result = await done;
      expect(result).toMatchObject({ code: 5, stdout: 'first\ntyped\n' });
      expect(result.stderr).toMatch(/^host unix:\/\/.*docker\.sock\n$/);
    });

    it('prints --json of any size (17 MB)', async () => {
      const env = withDocker('yes 0123456789abcdef | head -c 17000000; echo warn >&2');
      const result = await svc(alice, ['docker', 'ex-1', '--json', '--', 'logs', 'web'], { env, timeoutMs: 120_000 });
      expect(result.code).toBe(0);
      const answer = JSON.parse(result.stdout) as { stdout: string; stderr: string; exit_code: number; timed_out: boolean };
      expect(answer).toMatchObject({ stderr: 'warn\n', exit_code: 0, timed_out: false });
      expect(answer.stdout.length).toBe(17_000_000);
    }, 120_000);
  });
});
