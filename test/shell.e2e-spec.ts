/**
 * Interactive shells end to end: the CLI's SDK (openShell over DeviceStreams) → a client stream on
 * UNIFIED_PORT (ALPN h2, user token) → the relay → a real runtime process → a PTY on the
 * "device". Real TLS, real tokens; what is asserted is what a terminal would show.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as http2Connect } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { encodeFrame, encodeStreamArgs, FrameType } from '@svc/common';
import { DeviceStreamError, DeviceStreams } from '../apps/cli/src/sdk/device-streams';
import { openShell, ShellOptions, ShellSession } from '../apps/cli/src/sdk/shell-session';
import type { Caller } from './fixtures/api-client';
import { useFleet } from './fixtures/fleet';
import type { RuntimeProcess } from './fixtures/runtime-process';
import type { TestServer } from './fixtures/test-server';
import { eventually } from './fixtures/eventually';

const ALICE = 'alice@shell.test';
const SIZE = { cols: 100, rows: 30 };

/** A shell and everything it printed so far. */
interface Terminal {
  session: ShellSession;
  /** Output decoded as latin1, so that every byte is one character. */
  text(): string;
  /** Resolves with the first match of `pattern` in the output after `from` (a `text().length`). */
  waitFor(pattern: RegExp, from?: number): Promise<RegExpMatchArray>;
  type(line: string): void;
}

describe('interactive shell through client streams (real runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-shell-'));
  let streams: DeviceStreams;
  // Declared before the fleet, so that it runs first: the client's connection closes before the server.
  afterAll(async () => {
    await streams?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const fleet = useFleet({
    users: { alice: ALICE },
    devices: { 'sh-1': { owner: 'alice', shares: { 'viewer@shell.test': 'viewer' }, runtime: true }, 'sh-off': { owner: 'alice' } },
  });
  let server: TestServer;
  let alice: Caller;
  let runtime: RuntimeProcess;
  const open: ShellSession[] = [];

  beforeAll(() => {
    server = fleet.server;
    alice = fleet.user('alice').caller;
    runtime = fleet.device('sh-1').runtime!;
    streams = streamsFor(alice);
  });
  afterEach(() => {
    for (const session of open.splice(0)) session.close();
  });

  function streamsFor(caller: Caller): DeviceStreams {
    return new DeviceStreams({ host: '127.0.0.1', port: server.tunnel!.port, trust: { ca: readFileSync(server.tunnel!.caFile) }, token: () => caller.token! });
  }

  async function terminal(options: ShellOptions = SIZE): Promise<Terminal> {
    const session = await openShell(streams, 'sh-1', options);
    open.push(session);
    let output = '';
    const waiters = new Set<() => void>();
    session.output.on('data', (chunk: Buffer) => {
      output += chunk.toString('latin1');
      for (const check of [...waiters]) check();
    });
    return {
      session,
      text: () => output,
      waitFor: (pattern, from = 0) =>
        new Promise((resolve) => {
          const check = () => {
            const found = output.slice(from).match(pattern);
            if (!found) return;
            waiters.delete(check);
            resolve(found);
          };
          waiters.add(check);
          check();
        }),
      type: (line) => session.write(`${line}\n`),
    };
  }

  /** The kernel keeps /proc/<pid> until the parent reaps it: gone means dead and reaped. */
  async function gone(pid: number): Promise<void> {
    await eventually(`process ${pid} gone`, () => !existsSync(`/proc/${pid}`), { intervalMs: 50 });
  }

  it('starts with the requested size and follows a resize', async () => {
    const term = await terminal();
    // The typed line echoes with `SIZE:/`; only the command's output has digits after it.
    term.type(`stty size | sed 's/^/SIZE:/'`);
    expect((await term.waitFor(/SIZE:(\d+) (\d+)/)).slice(1)).toEqual(['30', '100']);
    const mark = term.text().length;
    term.session.resize(120, 40);
    term.type(`stty size | sed 's/^/SIZE:/'`);
    expect((await term.waitFor(/SIZE:(\d+) (\d+)/, mark)).slice(1)).toEqual(['40', '120']);
  });

  it('echoes what is typed and runs it', async () => {
    const term = await terminal();
    term.type('echo h""i');
    // The echo, then the output on a line of its own (bash may switch bracketed paste off in between).
    await term.waitFor(/echo h""i\r\n[^]*?\bhi\r\n/);
  });

  it('reports the exit status and ends the output', async () => {
    const term = await terminal();
    const ended = new Promise((resolve) => term.session.output.once('end', resolve));
    term.type('exit 3');
    await expect(term.session.exit).resolves.toEqual({ exit_code: 3, signal: null });
    await ended;
  });

  it('signals the foreground job', async () => {
    const term = await terminal();
    term.type(`sh -c 'echo SLE""EPING; exec sleep 1000'`);
    await term.waitFor(/SLEEPING/);
    const mark = term.text().length;
    term.session.signal('SIGINT');
    term.type('echo "RC:$?"');
    // 128 + SIGINT: the sleep was interrupted, not the shell.
    await term.waitFor(/RC:130/, mark);
  });

  it('carries every byte value both ways unchanged (raw mode)', async () => {
    const term = await terminal();
    const bytes = Buffer.from([...Array.from({ length: 256 }, (_, i) => i), ...Array.from({ length: 256 }, (_, i) => 255 - i)]);
    // The program reads the bytes, then writes them back verbatim (-opost) and as hex.
    term.type(
      `stty raw -echo -iexten; echo RE""ADY; head -c ${bytes.length} > raw.bin; printf 'BE''GIN'; cat raw.bin; printf 'E''ND'; ` +
        `od -An -v -tx1 raw.bin | tr -d ' \\n' | sed 's/^/HEX:/; s/$/;/'; echo; stty sane`,
    );
    await term.waitFor(/READY/);
    term.session.write(bytes);
    expect((await term.waitFor(/HEX:([0-9a-f]+);/))[1]).toBe(bytes.toString('hex'));
    const [, echoed] = await term.waitFor(/BEGIN([^]*?)END/);
    expect(Buffer.from(echoed, 'latin1').equals(bytes)).toBe(true);
  });

  it('kills the shell and its foreground job on the device when the client goes away', async () => {
    const term = await terminal();
    term.type(`echo "SHELL:$$:"; sh -c 'echo "JOB:$$:"; exec sleep 1000'`);
    const [, shellPid] = await term.waitFor(/SHELL:(\d+):/);
    const [, jobPid] = await term.waitFor(/JOB:(\d+):/);
    expect(existsSync(`/proc/${shellPid}`)).toBe(true);
    term.session.close();
    await expect(term.session.exit).rejects.toThrow('closed by this client');
    // The shell is the runtime's child: gone means killed and reaped.
    await gone(Number(shellPid));
    // The job is the shell's child, reaped by init once orphaned: dead is enough.
    await eventually(`process ${jobPid} dead`, () => !existsSync(`/proc/${jobPid}`) || /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${jobPid}/stat`, 'utf8')), { intervalMs: 50 });
  });

  it('kills the shell on the device when the client connection drops without a word', async () => {
    // A bare HTTP/2 client, so that the TCP connection itself can be cut (no RST_STREAM, no GOAWAY).
    const socket = tlsConnect({ host: '127.0.0.1', port: server.tunnel!.port, ca: readFileSync(server.tunnel!.caFile), ALPNProtocols: ['h2'] });
    const session = http2Connect(`https://127.0.0.1:${server.tunnel!.port}`, { createConnection: () => socket });
    session.on('error', () => undefined);
    const stream = session.request({ ':method': 'POST', ':path': '/v1/devices/sh-1/shell', authorization: `Bearer ${alice.token}`, 'svc-args': encodeStreamArgs(SIZE) });
    stream.on('error', () => undefined);
    let output = '';
    const shellPid = await new Promise<number>((resolve) => {
      stream.on('data', (chunk: Buffer) => {
        output += chunk.toString('latin1');
        const found = /SHELL:(\d+):/.exec(output);
        if (found) resolve(Number(found[1]));
      });
      stream.write(encodeFrame(FrameType.STDIN, 'echo "SHELL:$$:"\n'));
    });
    socket.destroy();
    await gone(shellPid);
  });

  it('runs a given command instead of the login shell, with its environment', async () => {
    const term = await terminal({ ...SIZE, term: 'vt100', command: ['/bin/sh', '-c', 'echo "T=$TERM V=$SVC_V K=${SVC_API_KEY-unset}"'], env: { SVC_V: 'v1' } });
    await expect(term.session.exit).resolves.toEqual({ exit_code: 0, signal: null });
    expect(term.text()).toContain('T=vt100 V=v1 K=unset');
  });

  it('delivers the whole output of a command that exits at once', async () => {
    // Through the relay to a real runtime: the terminal's last kilobytes used to be lost at the
    // end of 4 in 10 such commands (the runtime's PTY library ended the output early).
    for (let run = 0; run < 5; run++) {
      const term = await terminal({ ...SIZE, command: ['/bin/sh', '-c', "head -c 85000 /dev/zero | tr '\\0' x; echo END"] });
      const ended = new Promise((resolve) => term.session.output.once('end', resolve));
      await expect(term.session.exit).resolves.toEqual({ exit_code: 0, signal: null });
      await ended;
      expect({ run, xs: term.text().split('x').length - 1, end: term.text().includes('END') }).toEqual({ run, xs: 85000, end: true });
    }
  });

  it('audits the shell as device.shell_opened', async () => {
    const { logs } = await fleet.user('alice').route('device_audit_logs.one', { device: 'sh-1', max: 1000 });
    const entries = (logs as { action: string; details: string; user: string }[]).filter((e) => e.action === 'device.shell_opened');
    expect(entries).toEqual(expect.arrayContaining([expect.objectContaining({ user: ALICE, details: 'shell: login shell' })]));
  });

  describe('refusals before any byte', () => {
    async function refusal(open: Promise<unknown>): Promise<DeviceStreamError> {
      const error = await open.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(DeviceStreamError);
      return error as DeviceStreamError;
    }

    it.each([
      ['a viewer', 'viewer@shell.test', 'sh-1', 403, 'FORBIDDEN'],
      ['a stranger', 'stranger@shell.test', 'sh-1', 404, 'DEVICE_NOT_FOUND'],
      ['the owner of an offline device', ALICE, 'sh-off', 503, 'DEVICE_OFFLINE'],
    ])('answers %s with %s', async (_name, email, device, statusCode, code) => {
      const caller = streamsFor(await server.login(email));
      try {
        const error = await refusal(openShell(caller, device, SIZE));
        expect(error).toMatchObject({ code, statusCode, requestId: expect.any(String) });
      } finally {
        await caller.close();
      }
    });

    it.each([
      ['cols 0', { cols: 0, rows: 24 }, 'cols'],
      ['rows above 1000', { cols: 80, rows: 1001 }, 'rows'],
      ['fractional cols', { cols: 80.5, rows: 24 }, 'cols'],
      ['rows as text', { cols: 80, rows: '24' as unknown as number }, 'rows'],
      ['a malformed term', { cols: 80, rows: 24, term: 'x; rm -rf /' }, 'term'],
      ['an empty command', { cols: 80, rows: 24, command: [] }, 'command'],
    ])('answers INVALID_INPUT (400) for %s, even on an offline device', async (_name, options, field) => {
      for (const device of ['sh-1', 'sh-off']) {
        const error = await refusal(openShell(streams, device, options));
        expect(error).toMatchObject({ code: 'INVALID_INPUT', statusCode: 400, message: expect.stringContaining(field) });
      }
    });

    it('answers NOT_FOUND (404) for a program the device does not have', async () => {
      const error = await refusal(openShell(streams, 'sh-1', { ...SIZE, command: ['no-such-program-here'] }));
      expect(error).toMatchObject({ code: 'NOT_FOUND', statusCode: 404, message: 'Command not found: no-such-program-here' });
    });
  });

  it('refuses shells clearly on a device whose runtime cannot load the PTY library, and keeps serving', async () => {
    // What a platform without a prebuilt binary looks like to the runtime: the package does not resolve.
    const hook = join(dir, 'no-pty.js');
    writeFileSync(
      hook,
      `const Module = require('module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request.startsWith('@lydell/node-pty')) throw Object.assign(new Error('Cannot find module ' + request), { code: 'MODULE_NOT_FOUND' });
  return resolve.call(this, request, ...rest);
};`,
    );
    const bare = (await fleet.addDevice('sh-nopty', { owner: 'alice', runtime: { env: { NODE_OPTIONS: `--require ${hook}` } } })).runtime!;
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = await openShell(streams, 'sh-nopty', SIZE).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(error).toMatchObject({ code: 'NOT_FOUND', statusCode: 404, message: expect.stringMatching(/^Interactive shells are not supported on this device \(linux-/) });
      }
    } finally {
      bare.kill('SIGTERM');
      expect(await bare.exited).toEqual({ code: 0, signal: null });
    }
  });

  // Last: it stops the runtime.
  it('hangs the shell up when the runtime shuts down, and still reports its end', async () => {
    const term = await terminal();
    term.type('echo "SHELL:$$:"');
    const [, shellPid] = await term.waitFor(/SHELL:(\d+):/);
    runtime.kill('SIGTERM');
    await expect(term.session.exit).resolves.toEqual({ exit_code: null, signal: 'SIGHUP' });
    await gone(Number(shellPid));
    expect(await runtime.exited).toEqual({ code: 0, signal: null });
  });
});
