/**
 * The client streams' `svc-args` are catalog schemas (each stream route's `args`), checked by the
 * server's route validator with the REST API's 400: through the real stream route on
 * UNIFIED_PORT (TLS, HTTP/2, a user token) to a real runtime. Bad arguments (wrong types, extra
 * fields, huge values, control characters) are one clear `{statusCode, error, message, code,
 * requestId}` 400 that reaches no device; the good path is unchanged, before and after.
 */
import { readFileSync } from 'node:fs';
import { connect as http2Connect, ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { encodeStreamArgs, fillPath, findSubRoute, StreamRouteName } from '@svc/common';
import { DeviceStreams } from '../apps/cli/src/sdk/device-streams';
import { execStream } from '../apps/cli/src/sdk/exec-stream';
import { openShell } from '../apps/cli/src/sdk/shell-session';
import { useFleet } from './fixtures/fleet';
import { startEchoServer, TargetServer } from './fixtures/forward-targets';
import { requestTicket } from './fixtures/terminal-socket';
import type { TestServer } from './fixtures/test-server';

const ALICE = 'alice@stream-args.test';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe('client stream arguments are checked against the catalog (real runtime)', () => {
  let streams: DeviceStreams;
  let raw: ClientHttp2Session;
  let echo: TargetServer;
  afterAll(async () => {
    await streams?.close();
    raw?.close();
    await echo?.close();
  });
  const fleet = useFleet({ users: { alice: ALICE }, devices: { 'sa-1': { owner: 'alice', runtime: true } } });
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = fleet.server;
    token = fleet.user('alice').caller.token!;
    const ca = readFileSync(server.tunnel!.caFile);
    streams = new DeviceStreams({ host: '127.0.0.1', port: server.tunnel!.port, trust: { ca }, token: () => token });
    const socket = tlsConnect({ host: '127.0.0.1', port: server.tunnel!.port, ca, ALPNProtocols: ['h2'] });
    raw = http2Connect(`https://127.0.0.1:${server.tunnel!.port}`, { createConnection: () => socket });
    raw.on('error', () => undefined);
    // The fixture's echo server hears its connections' errors: a forward closed by the test is reset on the device's side (ECONNRESET).
    echo = await startEchoServer({ host: '127.0.0.1' });
  });

  /** Opens `route` on sa-1 with `args` as they are (no SDK types in the way) and reads the answer of a refusal. */
  function open(route: StreamRouteName, args: unknown): Promise<Answer> {
    const path = fillPath(findSubRoute(route)!.path, { device: 'sa-1' });
    const stream = raw.request({ ':method': 'POST', ':path': path, authorization: `Bearer ${token}`, 'svc-args': encodeStreamArgs(args as object) });
    return new Promise((resolve, reject) => {
      let status = 0;
      let text = '';
      stream.on('response', (headers) => {
        status = Number(headers[':status']);
        // An accepted stream is not what these cases expect: end it at once.
        if (status === 200) stream.close();
      });
      stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      stream.on('close', () => resolve({ status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
      stream.on('error', reject);
      stream.end();
    });
  }

  async function goodPathsWork(): Promise<void> {
    let output = '';
    const exit = await execStream(streams, 'sa-1', { command: ['sh', '-c', 'echo "out:$0"', 'ok'], timeout_secs: 10, onOutput: (_stream, data) => void (output += data.toString()) });
    expect([exit.exit_code, output]).toEqual([0, 'out:ok\n']);

    const shell = await openShell(streams, 'sa-1', { cols: 90, rows: 20, term: 'vt100', command: ['/bin/sh', '-c', 'echo "T=$TERM V=$SV"'], env: { SV: 'v1' } });
    let screen = '';
    shell.output.on('data', (chunk: Buffer) => (screen += chunk.toString('latin1')));
    await expect(shell.exit).resolves.toEqual({ exit_code: 0, signal: null });
    expect(screen).toContain('T=vt100 V=v1');

    const forward = await streams.openForward('sa-1', { kind: 'tcp', host: '127.0.0.1', port: echo.port });
    const echoed = new Promise<string>((resolve) => forward.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    forward.write('ping');
    await expect(echoed).resolves.toBe('ping');
    forward.close();
  }

  it('opens exec, shell and forward streams with good arguments', async () => {
    await goodPathsWork();
  });

  const HUGE_LIST = Array.from({ length: 5000 }, () => 'x');
  it.each<[StreamRouteName, string, unknown, string]>([
    // wrong types
    ['device_exec.stream', 'command as a string', { command: 'ls' }, 'command must be an array of strings'],
    ['device_exec.stream', 'stdin as text', { command: ['cat'], stdin: 'yes' }, 'stdin must be true or false'],
    ['device_exec.shell', 'cols as text', { cols: '80', rows: 24 }, 'cols must be a whole number from 1 to 1000'],
    ['device_exec.shell', 'env as a list', { env: ['A=b'] }, 'env must be an object of variable names'],
    ['forward_start.stream', 'port as text', { target: { kind: 'tcp', port: '22' } }, 'target.port must be a port number from 1 to 65535'],
    ['forward_start.stream', 'target as a string', { target: 'tcp:22' }, 'target must be an object'],
    // extra fields
    ['device_exec.stream', 'a cwd (the runtime\'s own)', { command: ['ls'], cwd: '/' }, 'unknown field cwd'],
    ['device_exec.shell', 'an unknown field', { cols: 80, rows: 24, shell: '/bin/zsh' }, 'unknown field shell'],
    ['forward_start.stream', 'an unknown target field', { target: { kind: 'tcp', port: 22, proto: 'udp' } }, 'unknown field target.proto'],
    ['docker_exec.stream', 'a socket of its own choosing', { socket: '/var/run/docker.sock' }, 'unknown field socket'],
    // huge values
    ['device_exec.stream', 'a timeout of 1e300 seconds', { command: ['ls'], timeout_secs: 1e300 }, 'timeout_secs must be more than 0 and at most 86400'],
    ['device_exec.stream', 'a 5000-item command', { command: HUGE_LIST }, 'command may name at most 4096 items'],
    ['device_exec.shell', 'a billion columns', { cols: 1e9, rows: 24 }, 'cols must be a whole number from 1 to 1000'],
    ['device_exec.shell', 'a 65-character TERM', { term: 'x'.repeat(65) }, 'term must be a terminal type name such as xterm-256color'],
    ['forward_start.stream', 'port 70000', { target: { kind: 'tcp', port: 70000 } }, 'target.port must be a port number from 1 to 65535'],
    // control characters
    ['device_exec.stream', 'a NUL in an argument', { command: ['ls', 'a\u0000b'] }, 'command must not contain NUL characters'],
    ['device_exec.shell', 'an escape sequence in TERM', { term: 'xterm\u001b[31m' }, 'term must be a terminal type name such as xterm-256color'],
    ['device_exec.shell', 'a NUL in a variable name', { env: { 'A\u0000B': 'c' } }, 'env must be an object of variable names'],
    ['forward_start.stream', 'a newline in the host', { target: { kind: 'tcp', host: 'db\nevil', port: 5432 } }, 'target.host must be an IP address or a host name'],
  ])('%s with %s: one clear 400', async (route, _case, args, message) => {
    const answer = await open(route, args);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining(message), code: 'INVALID_INPUT', requestId: expect.any(String) });
  });

  it('refuses the exec stream\'s arguments in the words of the REST route (one validator, one schema)', async () => {
    const bad = { command: 'ls', timeout_secs: 0 };
    const stream = await open('device_exec.stream', bad);
    const rest = await fleet.user('alice').attempt('device_exec', { device: 'sa-1', ...bad });
    expect(rest.ok).toBe(false);
    expect(stream.body.message).toBe(!rest.ok && rest.error.message);
    expect(stream.body.message).toBe('command must be an array of strings; timeout_secs must be more than 0 and at most 86400');
  });

  /** The operation of POST /api/tickets that opens each stream route (the browser's terminal). */
  const TICKET_OPERATION: Partial<Record<StreamRouteName, string>> = { 'device_exec.shell': 'device_shell', 'device_exec.stream': 'device_exec' };
  it.each<[StreamRouteName, string, Record<string, unknown>]>([
    ['device_exec.stream', 'command as a string', { command: 'ls' }],
    ['device_exec.stream', 'stdin as text and a zero timeout', { command: ['cat'], stdin: 'yes', timeout_secs: 0 }],
    ['device_exec.stream', "a cwd (the runtime's own)", { command: ['ls'], cwd: '/' }],
    ['device_exec.stream', 'a field of the shell', { command: ['ls'], cols: 80 }],
    ['device_exec.shell', 'cols as text', { cols: '80', rows: 24 }],
    ['device_exec.shell', 'env as a list', { env: ['A=b'] }],
    ['device_exec.shell', 'an unknown field', { cols: 80, rows: 24, shell: '/bin/zsh' }],
    ['device_exec.shell', 'an escape sequence in TERM', { term: 'xterm\u001b[31m' }],
  ])('a terminal ticket for %s with %s gets the stream route\'s own 400', async (route, _case, args) => {
    const stream = await open(route, args);
    const ticket = await requestTicket(server, fleet.user('alice').caller, { device: 'sa-1', operation: TICKET_OPERATION[route], ...args });
    const { requestId: _stream, ...streamAnswer } = stream.body;
    const { requestId: _ticket, ...ticketAnswer } = ticket.body as Record<string, unknown>;
    expect([ticket.status, ticketAnswer]).toEqual([stream.status, streamAnswer]);
    expect(streamAnswer).toMatchObject({ statusCode: 400, code: 'INVALID_INPUT' });
  });

  it('gives a terminal ticket for the arguments the stream route takes, env included', async () => {
    const args = { cols: 90, rows: 20, term: 'vt100', command: ['/bin/sh', '-c', 'echo "V=$SV"'], env: { SV: 'v1' } };
    await expect(requestTicket(server, fleet.user('alice').caller, { device: 'sa-1', operation: 'device_shell', ...args })).resolves.toMatchObject({ status: 201 });
    await expect(requestTicket(server, fleet.user('alice').caller, { device: 'sa-1', operation: 'device_exec', command: ['true'], timeout_secs: 5, stdin: true })).resolves.toMatchObject({ status: 201 });
  });

  it('still opens good streams after all that', async () => {
    await goodPathsWork();
  });
});
