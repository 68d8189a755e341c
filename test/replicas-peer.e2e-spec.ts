/**
 * The peer hop: a device whose tunnel replica B (a real server process) holds is reached through
 * replica A, A's stream going to B's peer listener (PEER_PORT) and on through B's tunnel. Exec
 * (JSON and NDJSON) and the files manifest over REST, compared with the same calls on B; a forward
 * and file copies through the real `svc` binary, byte for byte (job logs --follow:
 * replicas-peer-follow.e2e-spec.ts); a shell (resize, SIGINT), docker and a slow reader's
 * backpressure over client streams to A; partitions A ↛ B. (The peer listener's refusals:
 * replicas-peer-listener.e2e-spec.ts.)
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { eventually, untilSteady } from './fixtures/eventually';
import { startEchoServer, startFirehoseServer, TargetServer } from './fixtures/forward-targets';
import { DeviceStreams } from '../apps/cli/src/sdk/device-streams';
import { openShell } from '../apps/cli/src/sdk/shell-session';
import { dockerExec } from '../apps/cli/src/sdk/docker-exec';
import { PodmanService, startPodmanService } from './fixtures/container-engine';
import { ReplicaName, useReplicaFleet } from './fixtures/replica-fleet';
import { PEER_OPEN_TIMEOUT_MS } from '../apps/server/src/replicas/peer-tunnel-session';
import { PEER_DEAD_AFTER_MS, PEER_PING_MS } from '../apps/server/src/replicas/peer-connections';

const ALICE = 'alice@replica-peer.test';
const MALLORY = 'mallory@replica-peer.test';
const DEVICE = 'peer-1';
const OFFLINE = 'peer-off';
/**
 * Room a loaded 2-core machine needs on top of the peer timeouts: the exec's own work before its
 * stream opens (token, policy, audit: milliseconds here) and timers and this process's event loop
 * (replica A runs in it) running late.
 */
const MARGIN_MS = 1_500;

describe('replicas on NATS: the peer hop', () => {
  const fleet = useReplicaFleet({ users: { alice: ALICE, mallory: MALLORY }, devices: { [DEVICE]: { owner: 'alice' }, [OFFLINE]: { owner: 'alice' } } });
  let echo: TargetServer;
  let engine: PodmanService;
  /** Alice's client streams to A (shell, forward, docker), as svc opens them. */
  let streams: DeviceStreams;
  const home = () => fleet.dir;

  beforeAll(async () => {
    echo = await startEchoServer({ host: '127.0.0.1' });
    engine = await startPodmanService(home());
    await fleet.startRuntime(DEVICE, { on: 'b', args: ['--docker-socket', engine.socket] });
    await eventually('A to see the device B holds', async () => (await fleet.user('alice').on('a').route('device_status.one', { device: DEVICE })).status === 'online');
    streams = await fleet.user('alice').client.streams();
  });

  // After the fleet's teardown (declared first), which stops the runtime that uses the engine.
  afterAll(async () => {
    await engine?.stop();
    await echo?.close();
  });

  const exec = (on: ReplicaName, who: 'alice' | 'mallory', device: string, command: string[]) => fleet.user(who).on(on).attempt('device_exec', { device, command });

  it('exec (JSON) through A on a device held by B answers exactly what B answers', async () => {
    const command = ['sh', '-c', 'seq 1 20000; exit 3'];
    const [throughA, onB] = [await exec('a', 'alice', DEVICE, command), await exec('b', 'alice', DEVICE, command)];
    expect(throughA.ok).toBe(true);
    const expected = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('');
    expect(throughA).toEqual({ ok: true, result: { exit_code: 3, output: expected, timed_out: false } });
    expect(onB).toEqual(throughA);
    // B relayed it: its log names the stream (A authorized and audited it, as for a local device).
    expect(fleet.b.output()).toMatch(/peer stream exec on device peer-1 for alice@replica-peer\.test/);
  });

  /**
   * POST `path` on A or B asking for NDJSON: the answer's status and raw text. Raw HTTP: the
   * media type asked for, and the answer's bytes through the hop, are the REST contract under test.
   */
  const ndjson = async (on: ReplicaName, path: string, body: object) => {
    const answer = await (on === 'a' ? fleet.a.api : fleet.b.api).post(path, body, { ...fleet.user('alice').caller, headers: { accept: 'application/x-ndjson' } });
    expect(answer.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    return { status: answer.status, text: String(answer.body) };
  };

  it('exec (NDJSON) through A answers what the same call on B answers: every byte of each stream, then the exit line', async () => {
    // Multi-byte characters across the device's read boundaries; stderr and stdout both.
    const command = ['sh', '-c', 'seq 1 30000 | sed "s/$/ é€✓/"; echo "to stderr ü" >&2; exit 3'];
    const expected = Array.from({ length: 30000 }, (_, i) => `${i + 1} é€✓\n`).join('');
    // Where the device's pipe reads cut the output (so how it splits into lines) is up to timing on
    // the device; what the hop must keep is each stream's bytes, their order and the exit line.
    const streamsOf = (text: string) => {
      const lines = text.split('\n');
      expect(lines.pop()).toBe('');
      const parsed = lines.map((line) => JSON.parse(line) as { stream?: string; data?: string });
      return { stdout: parsed.filter((l) => l.stream === 'stdout').map((l) => l.data).join(''), stderr: parsed.filter((l) => l.stream === 'stderr').map((l) => l.data).join(''), last: lines[lines.length - 1], count: parsed.length };
    };
    const throughA = await ndjson('a', '/api/exec', { device: DEVICE, command });
    const onB = await ndjson('b', '/api/exec', { device: DEVICE, command });
    expect([throughA.status, onB.status]).toEqual([200, 200]);
    const [a, b] = [streamsOf(throughA.text), streamsOf(onB.text)];
    expect(a.stdout === expected).toBe(true);
    expect(a.stderr).toBe('to stderr ü\n');
    expect(a.last).toBe('{"exit_code":3,"timed_out":false}');
    // The answer streamed (more than one output line), as it does without the hop.
    expect(a.count).toBeGreaterThan(2);
    expect({ ...b, count: 0 }).toEqual({ ...a, count: 0 });
  });

  it('the files manifest through A is byte for byte the one B answers, with each file\'s SHA-256', async () => {
    const tree = join(home(), 'tree');
    const files: Record<string, Buffer> = { 'a.bin': randomBytes(70_000), 'sub/b.txt': Buffer.from('hello ü\n'), 'sub/deeper/c.bin': randomBytes(3) };
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(tree, path)), { recursive: true });
      writeFileSync(join(tree, path), content);
    }
    const body = { path: tree, hash: true };
    const throughA = await ndjson('a', `/devices/${DEVICE}/files/manifest`, body);
    const onB = await ndjson('b', `/devices/${DEVICE}/files/manifest`, body);
    expect(throughA.status).toBe(200);
    expect(throughA.text === onB.text).toBe(true);
    const entries = throughA.text.trim().split('\n').map((line) => JSON.parse(line) as { path: string; is_dir: boolean; size: number; sha256?: string });
    const sha = (content: Buffer) => createHash('sha256').update(content).digest('hex');
    expect(entries.filter((e) => !e.is_dir).map(({ path, size, sha256 }) => ({ path, size, sha256 })).sort((x, y) => x.path.localeCompare(y.path))).toEqual(
      Object.entries(files).map(([path, content]) => ({ path, size: content.length, sha256: sha(content) })),
    );
    expect(entries.filter((e) => e.is_dir).map((e) => e.path).sort()).toEqual(['sub', 'sub/deeper']);
  });

  it('svc forward through A carries a connection to the device held by B byte for byte', async () => {
    const data = randomBytes(3 * 1024 * 1024).toString('base64');
    const result = await fleet.user('alice').svc(['forward', '--stdio', DEVICE, String(echo.port)], { input: data });
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBe(data.length);
    expect(result.stdout === data).toBe(true);
  });

  it('svc cp up and down through A, to and from the device held by B, keeps every byte (checksums, trailers across the hop)', async () => {
    const original = join(home(), 'payload.bin');
    const back = join(home(), 'payload.back');
    const onDevice = join(home(), 'on-device', 'payload.bin');
    const content = randomBytes(5 * 1024 * 1024 + 123);
    writeFileSync(original, content);
    const up = await fleet.user('alice').svc(['cp', original, `${DEVICE}:${onDevice}`]);
    expect(up.code).toBe(0);
    expect(readFileSync(onDevice).equals(content)).toBe(true);
    const down = await fleet.user('alice').svc(['cp', `${DEVICE}:${onDevice}`, back]);
    expect(down.code).toBe(0);
    expect(readFileSync(back).equals(content)).toBe(true);
  });

  it('keeps the order local tunnel, then peer, then 503 DEVICE_OFFLINE; a caller without access is told "not found" on A', async () => {
    expect(await exec('a', 'alice', OFFLINE, ['true'])).toMatchObject({ ok: false, error: { status: 503, code: 'DEVICE_OFFLINE' } });
    expect(await exec('a', 'mallory', DEVICE, ['true'])).toMatchObject({ ok: false, error: { status: 404, code: 'DEVICE_NOT_FOUND' } });
  });

  it('a shell through A on the device held by B starts with its size, follows a resize and passes SIGINT to the foreground job', async () => {
    const shell = await openShell(streams, DEVICE, { cols: 100, rows: 30 });
    try {
      let output = '';
      shell.output.on('data', (chunk: Buffer) => (output += chunk.toString('latin1')));
      const seen = (pattern: RegExp, from: number) => eventually(`the shell to print ${pattern}`, () => output.slice(from).match(pattern) ?? false, { describe: () => output.slice(-500) });
      shell.write(`stty size | sed 's/^/SIZE:/'\n`);
      expect((await seen(/SIZE:(\d+) (\d+)/, 0)).slice(1)).toEqual(['30', '100']);
      let mark = output.length;
      shell.resize(120, 40);
      shell.write(`stty size | sed 's/^/SIZE:/'\n`);
      expect((await seen(/SIZE:(\d+) (\d+)/, mark)).slice(1)).toEqual(['40', '120']);
      shell.write(`sh -c 'echo SLE""EPING; exec sleep 1000'\n`);
      await seen(/SLEEPING/, mark);
      mark = output.length;
      shell.signal('SIGINT');
      shell.write('echo "RC:$?"\n');
      // 128 + SIGINT: the sleep was interrupted, not the shell.
      await seen(/RC:130/, mark);
    } finally {
      shell.close();
    }
  });

  it('docker passthrough through A reaches the engine on the device held by B (podman answers the Docker API)', async () => {
    const result = await dockerExec(streams, { device: DEVICE, args: ['version'] });
    expect(result).toMatchObject({ exit_code: 0, timed_out: false });
    expect(result.stdout).toMatch(/^Server:/m);
    expect(result.stdout).toContain('Podman Engine');
    expect(fleet.b.output()).toMatch(/peer stream docker on device peer-1/);
  });

  it('a slow reader on A holds the device held by B back (flow control across the hop), then gets every byte', async () => {
    const total = 256 * 1024 * 1024;
    const firehose = await startFirehoseServer({ host: '127.0.0.1' }, total);
    try {
      const stream = await streams.openForward(DEVICE, { kind: 'tcp', host: '127.0.0.1', port: firehose.port });
      stream.pause();
      await untilSteady('the target to hand over no more: every buffer on the way (both hops) full', () => firehose.sent());
      expect(firehose.sent()).toBeLessThan(total / 4);
      let received = 0;
      stream.on('data', (chunk: Buffer) => (received += chunk.length));
      stream.resume();
      stream.end();
      await new Promise((resolve) => stream.once('end', resolve));
      expect(received).toBe(total);
    } finally {
      await firehose.close();
    }
  });

  it('a partition A ↛ B (B stopped with SIGSTOP): A answers 503 within the peer timeout, and serves the device again once B is back', async () => {
    // A's connection to B is open (this exec), and the stopped B answers nothing on it.
    expect((await exec('a', 'alice', DEVICE, ['true'])).ok).toBe(true);
    fleet.b.child.kill('SIGSTOP');
    try {
      const started = Date.now();
      const answer = await exec('a', 'alice', DEVICE, ['true']);
      expect(answer).toMatchObject({ ok: false, error: { status: 503, code: 'DEVICE_OFFLINE' } });
      expect(Date.now() - started).toBeLessThan(PEER_OPEN_TIMEOUT_MS + MARGIN_MS);
    } finally {
      fleet.b.child.kill('SIGCONT');
    }
    let last: unknown;
    const back = await eventually('exec through A to work again', async () => {
      const answer = await exec('a', 'alice', DEVICE, ['echo', 'again']);
      last = answer;
      return answer.ok && answer;
    }, { describe: () => `last answer: ${JSON.stringify(last)}; B: ${fleet.b.output().slice(-1500)}` });
    expect(back).toMatchObject({ ok: true, result: { output: 'again\n', exit_code: 0 } });
  });

  it('a partition mid-stream (B stopped while an exec runs through A): the caller gets a clean error within the peer keep-alive, not a hang', async () => {
    const inFlight = exec('a', 'alice', DEVICE, ['sh', '-c', 'echo started; sleep 60']);
    const mark = fleet.b.output().length;
    await eventually('the exec to reach B', () => fleet.b.output().slice(mark).includes(`peer stream exec on device ${DEVICE}`));
    fleet.b.child.kill('SIGSTOP');
    try {
      const stoppedAt = Date.now();
      const answer = await inFlight;
      expect(answer).toMatchObject({ ok: false, error: { status: 503, code: 'DEVICE_OFFLINE' } });
      // The connection is judged dead at the first ping check PEER_DEAD_AFTER_MS after B's last answer.
      expect(Date.now() - stoppedAt).toBeLessThan(PEER_DEAD_AFTER_MS + PEER_PING_MS + MARGIN_MS);
    } finally {
      fleet.b.child.kill('SIGCONT');
    }
    await eventually('exec through A to work again', async () => (await exec('a', 'alice', DEVICE, ['true'])).ok);
  });
});
