/**
 * The stdio form of a forward (one connection over stdin/stdout) end to end: a real `ssh` whose
 * ProxyCommand is that form reaches a real `sshd` on the device's side, through client streams,
 * the relay and a real runtime process; and `forwardStdio` itself against an echo server.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { DeviceStreams } from '../apps/cli/src/sdk/device-streams';
import { forwardStdio } from '../apps/cli/src/sdk/local-forwarder';
import type { Caller } from './fixtures/api-client';
import { startCountServer, startEchoServer, TargetServer } from './fixtures/forward-targets';
import { useFleet } from './fixtures/fleet';
import { launcherHook } from './fixtures/runtime-process';
import { Sshd, startSshd } from './fixtures/sshd';
import type { TestServer } from './fixtures/test-server';

const ALICE = 'alice@stdio.test';
const PROXY = resolve(__dirname, 'fixtures/stdio-proxy.ts');

describe('the stdio form of a forward (real runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-stdio-'));
  let streams: DeviceStreams;
  // Declared before the fleet, so that it runs first: the client's connection closes before the server.
  afterAll(async () => {
    await streams?.close();
  });
  const fleet = useFleet({ users: { alice: ALICE }, devices: { 'st-1': { owner: 'alice', runtime: true } } });
  let server: TestServer;
  let alice: Caller;
  let sshd: Sshd;
  const targets: TargetServer[] = [];

  beforeAll(async () => {
    sshd = await startSshd(dir);
    server = fleet.server;
    alice = fleet.user('alice').caller;
    streams = new DeviceStreams({ host: '127.0.0.1', port: server.tunnel!.port, trust: { ca: readFileSync(server.tunnel!.caFile) }, token: () => alice.token! });
  });
  afterEach(async () => {
    await Promise.all(targets.splice(0).map((t) => t.close()));
  });
  afterAll(async () => {
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a program to its end; resolves with its exit code and output. */
  function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((done, fail) => {
      const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', fail);
      child.once('close', (code) => done({ code, stdout, stderr }));
    });
  }

  function ssh(remote: string, command: string[]) {
    // %-tokens aside, ssh hands ProxyCommand to the shell; the paths here need no quoting.
    const proxy = `${process.execPath} -r ${launcherHook()} ${PROXY} st-1 ${remote}`;
    // "st-1" is no host name: only the ProxyCommand can reach anything.
    return run('ssh', [...sshd.clientOptions, '-o', `ProxyCommand=${proxy}`, `${sshd.user}@st-1`, ...command], {
      ...process.env,
      SVC_STREAMS_PORT: String(server.tunnel!.port),
      SVC_CA_FILE: server.tunnel!.caFile,
      SVC_TOKEN: alice.token!,
    });
  }

  it('carries a real ssh session to sshd on the device (ProxyCommand)', async () => {
    const result = await ssh(String(sshd.port), ['echo', 'ok']);
    expect(result).toMatchObject({ code: 0, stdout: 'ok\n' });
    const audit = await fleet.user('alice').route('device_audit_logs.one', { device: 'st-1', max: 100 });
    expect(audit.logs).toContainEqual(expect.objectContaining({ action: 'device.forward_opened', details: `forward to tcp 127.0.0.1:${sshd.port}` }));
  });

  it('fails ssh with the refusal on stderr when the target is closed', async () => {
    const closed = await startEchoServer({ host: '127.0.0.1' });
    await closed.close();
    const result = await ssh(String(closed.port), ['echo', 'ok']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`Connection refused by 127.0.0.1:${closed.port} on the device`);
  });

  it('forwards one connection over a pair of streams, byte for byte', async () => {
    const echo = await startEchoServer({ host: '127.0.0.1' });
    targets.push(echo);
    const input = new PassThrough();
    const output = new PassThrough();
    const received: Buffer[] = [];
    output.on('data', (chunk: Buffer) => received.push(chunk));
    const payload = randomBytes(1024 * 1024);
    const done = forwardStdio(streams, 'st-1', { kind: 'tcp', host: '127.0.0.1', port: echo.port }, input, output);
    input.end(payload);
    expect(await done).toEqual({ aborted: false });
    expect(Buffer.concat(received).equals(payload)).toBe(true);
  });

  it('answers only after our end of input crossed (half-close)', async () => {
    const counter = await startCountServer({ host: '127.0.0.1' });
    targets.push(counter);
    const input = new PassThrough();
    const output = new PassThrough();
    let answer = '';
    output.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const done = forwardStdio(streams, 'st-1', { kind: 'tcp', host: '127.0.0.1', port: counter.port }, input, output);
    input.end(Buffer.alloc(70_000));
    await done;
    expect(answer).toBe('received 70000');
  });

  it('rejects before reading input when the device refuses', async () => {
    const input = new PassThrough();
    await expect(forwardStdio(streams, 'st-1', { kind: 'unix', path: join(dir, 'none.sock') }, input, new PassThrough())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(input.readableFlowing).toBeNull();
  });
});
