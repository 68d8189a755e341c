/**
 * `svc shell` and `svc forward` end to end: the real binary against the real server and identity
 * provider and a real runtime process as the device. The shell runs inside a real pseudo-terminal
 * (node-pty), the way a user's terminal emulator runs it; forwards carry real TCP connections to an
 * echo server on the device's side.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, Server } from 'node:net';
import { IPty, spawn as spawnPty } from '@lydell/node-pty';
import { exchange, startEchoServer, TargetServer } from './fixtures/forward-targets';
import { EVENTUALLY_MS } from './fixtures/eventually';
import { useFleet } from './fixtures/fleet';
import { freePort } from './fixtures/free-port';
import { CliHome, collect, spawnSvc, svc, SVC_BIN, svcJson } from './fixtures/svc-cli';

const ALICE = 'alice@cli-shell.test';
const VIEWER = 'viewer@cli-shell.test';

interface ForwardStarted {
  session_id: string;
  device: string;
  targets: string[];
  status: string;
}

describe('svc shell and svc forward (real binary, real runtime)', () => {
  let alice: CliHome;
  let echo: TargetServer;
  // Declared before the fleet, so that it runs first: sessions end and the echo server closes before the server stops.
  afterAll(async () => {
    // A background session left over by a failed test must not outlive the run.
    const left = alice ? await svcJson<ForwardStarted[]>(alice, ['forward', 'list']).catch(() => []) : [];
    for (const session of left) await svc(alice, ['forward', 'stop', session.session_id]);
    await echo?.close();
  });
  const fleet = useFleet({ users: { alice: ALICE, viewer: VIEWER }, devices: { 'sf-1': { owner: 'alice', shares: { viewer: 'viewer' }, runtime: true }, 'sf-off': { owner: 'alice' } } });

  beforeAll(async () => {
    echo = await startEchoServer({ host: '127.0.0.1' });
    alice = fleet.user('alice').home;
  });

  describe('svc shell', () => {
    /** `svc shell <device>` in a pseudo-terminal, and everything that terminal showed. */
    function terminal(args: string[]) {
      const pty: IPty = spawnPty(process.execPath, [SVC_BIN, 'shell', ...args], { name: 'xterm', cols: 100, rows: 30, cwd: alice.dir, env: alice.env });
      let output = '';
      const waiters = new Set<() => void>();
      pty.onData((data) => {
        output += data;
        for (const check of [...waiters]) check();
      });
      const exited = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
      return {
        pty,
        exited,
        text: () => output,
        waitFor: (pattern: RegExp, from = 0) =>
          new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => {
              waiters.delete(check);
              reject(new Error(`${pattern} not shown within ${EVENTUALLY_MS / 1000} s; the terminal showed:\n${JSON.stringify(output)}`));
            }, EVENTUALLY_MS);
            const check = () => {
              if (!pattern.test(output.slice(from))) return;
              clearTimeout(timer);
              waiters.delete(check);
              resolve();
            };
            waiters.add(check);
            check();
          }),
      };
    }

    it('runs on a real terminal: raw keys, size, resize, and the exit code passed through', async () => {
      const term = terminal(['sf-1']);
      term.pty.write('stty size\r');
      await term.waitFor(/^30 100\r?$/m);
      const mark = term.text().length;
      term.pty.resize(120, 40);
      // svc sees the SIGWINCH and the next keystrokes in either order: ask until the new size shows.
      const asking = setInterval(() => term.pty.write('stty size\r'), 500);
      term.pty.write('stty size\r');
      await term.waitFor(/^40 120\r?$/m, mark).finally(() => clearInterval(asking));
      // Raw mode: Ctrl-C reaches the program on the device's terminal instead of ending svc; that
      // program's exit code becomes the shell's, and svc's.
      term.pty.write(`sh -c 'trap "echo trapped-\\$((6*7)); exit 7" INT; echo ready; while :; do sleep 1; done'; exit $?\r`);
      await term.waitFor(/^ready\r?$/m);
      term.pty.write('\x03');
      expect(await term.exited).toBe(7);
      expect(term.text()).toMatch(/trapped-42\r?$/m); // after the echoed ^C
    });

    it('works with piped input, which ends with Ctrl-D', async () => {
      const result = await svc(alice, ['shell', 'sf-1'], { input: 'echo piped-$((1+1))\n' });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('piped-2');
    });

    it('prints {exit_code, signal} under --json, the terminal output going to stderr', async () => {
      const result = await svc(alice, ['shell', 'sf-1', '--json'], { input: 'echo to-stderr\nexit 5\n' });
      expect(result.code).toBe(5);
      expect(JSON.parse(result.stdout)).toEqual({ exit_code: 5, signal: null });
      expect(result.stderr).toContain('to-stderr');
    });

    it('fails with one line and exit 2 for an offline device', async () => {
      const result = await svc(alice, ['shell', 'sf-off'], { input: 'exit\n' });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^Error: .*offline[^\n]*\n$/i);
    });
  });

  describe('svc forward', () => {
    const servers: Server[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
    });

    /** A port that something else holds for the test's duration. */
    async function takenPort(): Promise<number> {
      const holder = createServer((socket) => socket.on('error', () => undefined).destroy());
      servers.push(holder);
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      return (holder.address() as { port: number }).port;
    }

    it('forwards in the foreground until SIGINT, then closes and exits 0', async () => {
      const port = await freePort();
      const child = spawnSvc(alice, ['forward', 'sf-1', `${port}:${echo.port}`, '--json']);
      const done = collect(child, ['forward']);
      const started = await new Promise<ForwardStarted>((resolve) => {
        let seen = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.endsWith('}\n')) resolve(JSON.parse(seen) as ForwardStarted);
        });
      });
      expect(started).toEqual({ device: 'sf-1', specs: [`${port}:${echo.port}`], targets: [`TcpPort(${port}->${echo.port})`], status: 'started' });
      const data = randomBytes(64 * 1024);
      expect((await exchange({ port }, data)).equals(data)).toBe(true);
      child.kill('SIGINT');
      expect((await done).code).toBe(0);
      // The listener is gone with the process.
      await expect(exchange({ port }, data)).rejects.toThrow(/ECONNREFUSED/);
    });

    it('starts for an offline device with a note, since it may come back', async () => {
      const port = await freePort();
      const child = spawnSvc(alice, ['forward', 'sf-off', `${port}:${echo.port}`]);
      const done = collect(child, ['forward']);
      await new Promise<void>((resolve) => {
        let seen = '';
        child.stderr!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes('Press Ctrl-C to stop.')) resolve();
        });
      });
      child.kill('SIGTERM');
      const result = await done;
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('Note: sf-off is offline; connections fail until it is online.');
    });

    it('fails at once with a clear line and exit 2 when the local port is taken', async () => {
      const port = await takenPort();
      const result = await svc(alice, ['forward', 'sf-1', `${port}:${echo.port}`]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`Error: Cannot listen on local port ${port}: it is already in use (stop what holds it, or pick another)\n`);
    });

    it('starts a background session, lists it, carries connections, and stops it', async () => {
      const port = await freePort();
      const started = await svcJson<ForwardStarted>(alice, ['forward', 'start', 'sf-1', `${port}:${echo.port}`]);
      expect(started).toEqual({ session_id: expect.stringMatching(/^fwd-[0-9a-f]+$/), device: 'sf-1', targets: [`TcpPort(${port}->${echo.port})`], status: 'started' });
      // The command returned; the session outlives it.
      const data = randomBytes(32 * 1024);
      expect((await exchange({ port }, data)).equals(data)).toBe(true);
      expect(await svcJson(alice, ['forward', 'list'])).toEqual([{ session_id: started.session_id, device: 'sf-1', specs: [`${port}:${echo.port}`], targets: started.targets }]);
      const human = await svc(alice, ['forward', 'list']);
      expect(human.stdout).toContain(started.session_id);
      expect(await svcJson(alice, ['forward', 'stop', started.session_id])).toEqual({ session_id: started.session_id, status: 'stopped' });
      expect(await svcJson(alice, ['forward', 'list'])).toEqual([]);
      await expect(exchange({ port }, data)).rejects.toThrow(/ECONNREFUSED/);
    });

    it('refuses to start a background session on a taken port: clear line, exit 2, nothing listed', async () => {
      const port = await takenPort();
      const result = await svc(alice, ['forward', 'start', 'sf-1', `${port}:${echo.port}`]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`Error: Cannot listen on local port ${port}: it is already in use (stop what holds it, or pick another)\n`);
      expect(await svcJson(alice, ['forward', 'list'])).toEqual([]);
    });

    it('refuses a viewer up front, in the server\'s words and with exit 2: nothing listens, no session is left', async () => {
      const viewer = fleet.user('viewer').home;
      const refusal = 'Error: Access denied: your role (viewer) does not allow device:forward\n';
      const port = await freePort();
      const foreground = await svc(viewer, ['forward', 'sf-1', `${port}:${echo.port}`]);
      expect(foreground).toMatchObject({ code: 2, stdout: '', stderr: refusal });
      await expect(exchange({ port }, Buffer.from('x'))).rejects.toThrow(/ECONNREFUSED/);
      const background = await svc(viewer, ['forward', 'start', 'sf-1', `${port}:${echo.port}`]);
      expect(background).toMatchObject({ code: 2, stderr: refusal });
      expect(await svcJson(viewer, ['forward', 'list'])).toEqual([]);
    });

    it('never signals a process that took over a dead session\'s pid: the session is gone, its record removed', async () => {
      // The session's process died without removing its record, and its pid went to something else.
      const bystander = spawn('sleep', ['300'], { stdio: 'ignore' });
      const exited = new Promise((resolve) => bystander.once('exit', resolve));
      try {
        const forwards = join(alice.configDir, 'forwards');
        mkdirSync(forwards, { recursive: true, mode: 0o700 });
        const record = (id: string, extra: object) => {
          const session = { session_id: id, device: 'sf-1', specs: ['1:1'], targets: ['TcpPort(1->1)'], pid: bystander.pid, started_at: new Date().toISOString(), ...extra };
          writeFileSync(join(forwards, `${id}.json`), JSON.stringify(session), { mode: 0o600 });
          return join(forwards, `${id}.json`);
        };
        const reused = record('fwd-00000000beef', { process_start: 'another process, started earlier' });
        const legacy = record('fwd-00000000cafe', {}); // written before records carried the start time
        expect(await svcJson(alice, ['forward', 'list'])).toEqual([]);
        expect(existsSync(reused)).toBe(false);
        expect(existsSync(legacy)).toBe(false);

        record('fwd-00000000beef', { process_start: 'another process, started earlier' });
        const stopped = await svc(alice, ['forward', 'stop', 'fwd-00000000beef']);
        expect(stopped.code).toBe(2);
        expect(stopped.stderr).toContain('No forward session fwd-00000000beef');
        expect(existsSync(reused)).toBe(false);
        expect(bystander.exitCode).toBeNull();
        expect(bystander.signalCode).toBeNull();
      } finally {
        bystander.kill('SIGKILL');
        await exited;
      }
    });

    it('answers stop of an unknown session with exit 2', async () => {
      const result = await svc(alice, ['forward', 'stop', 'fwd-0123456789ab', '--json']);
      expect(result.code).toBe(2);
      expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'NOT_FOUND', exit_code: 2 } });
    });

    it('forwards one connection over stdin/stdout with --stdio', async () => {
      const result = await svc(alice, ['forward', '--stdio', 'sf-1', String(echo.port)], { input: 'over stdio' });
      expect(result).toMatchObject({ code: 0, stdout: 'over stdio' });
    });

    it('documents the spec forms with examples', async () => {
      const result = await svc(alice, ['forward', '--help']);
      expect(result.stdout).toContain('svc forward edge-1 8080:80');
      expect(result.stdout).toContain('--stdio');
    });
  });
});
