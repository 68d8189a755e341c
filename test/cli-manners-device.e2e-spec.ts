/**
 * CLI manners that need a real device: hostile names in `--json` and `svc mcp` output, relative
 * times for `svc devices logs --since/--until`, and how an
 * interactive `svc shell` ends when the device's runtime stops or the server dies. The real
 * binary (the shell in a real pseudo-terminal), the real server, a real runtime process.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { AddressInfo, connect, createServer as createNetServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IPty, spawn as spawnPty } from '@lydell/node-pty';
import { callTool, startMcp } from './fixtures/mcp-session';
import { useFleet } from './fixtures/fleet';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { CliHome, svc, SVC_BIN, svcJson } from './fixtures/svc-cli';
import type { TestServer } from './fixtures/test-server';

const ALICE = 'alice@cli-manners-device.test';
const DEVICE = 'md-1';
/** C1 CSI (U+009B: "ESC [" in one character), right-to-left override, left-to-right isolate. */
const HOSTILE_NAME = 'report\u009b2J\u202Etxt.exe\u2066.log';

/** `svc <args>` in a pseudo-terminal, as a user's terminal emulator runs it, and what it showed. */
function terminal(home: CliHome, args: string[]) {
  const pty: IPty = spawnPty(process.execPath, [SVC_BIN, ...args], { name: 'xterm', cols: 100, rows: 30, cwd: home.dir, env: home.env });
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
    waitFor: (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${pattern} not shown within 30 s; the terminal showed:\n${JSON.stringify(output)}`));
        }, 30_000);
        const check = () => {
          if (!pattern.test(output)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
  };
}

/**
 * A path to `server` that can be cut like a dropped network: its REST API through a relay that
 * announces a second relay as the stream endpoint, whose connections `cut()` resets.
 */
async function startCuttablePath(server: TestServer): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const target = new URL(server.url);
  const sockets = new Set<Socket>();
  const streams = createNetServer((client) => {
    const upstream = connect(server.tunnel!.port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined).once('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => streams.listen(0, '127.0.0.1', resolve));
  const streamPort = (streams.address() as AddressInfo).port;
  const rest = createHttpServer((req, res) => {
    const forwarded = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      // A server stopped mid-answer resets it: the caller sees its answer cut, the test process no uncaught error.
      answer.on('error', () => res.destroy());
      if (req.url !== '/auth/config') {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      let text = '';
      answer.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      answer.on('end', () => {
        const config = JSON.parse(text) as { tunnel: { port: number } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...config, tunnel: { ...config.tunnel, port: streamPort } }));
      });
    });
    forwarded.on('error', () => res.destroy());
    req.on('error', () => forwarded.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => rest.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(rest.address() as AddressInfo).port}`,
    cut: () => {
      for (const socket of sockets) socket.resetAndDestroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      rest.closeAllConnections();
      await Promise.all([new Promise((resolve) => streams.close(resolve)), new Promise((resolve) => rest.close(resolve))]);
    },
  };
}

describe('svc manners with a real device', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-manners-device-'));
  // The test's own data directory: its CA file outlives the server stopped by the last test.
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-manners-data-'));
  // Declared before the fleet, so that it runs first: the runtime stops before the server.
  afterAll(async () => {
    await stopRuntime();
  });
  const fleet = useFleet({ env: { DATA_DIR: dataDir }, relay: true, users: { alice: ALICE }, devices: { [DEVICE]: { owner: 'alice' } } });
  let server: TestServer;
  let alice: CliHome;
  let apiKey: string;
  let runtime: RuntimeProcess | undefined;

  const startRuntime = async () => {
    runtime = startRuntimeProcess(['run'], { HOME: dir, SVC_CONFIG_DIR: join(dir, 'svc'), SVC_SERVER_URL: server.url, SVC_CA_FILE: server.tunnel!.caFile, SVC_API_KEY: apiKey });
    await runtime.waitForLog('tunnel up');
  };
  const stopRuntime = async () => {
    runtime?.kill('SIGTERM');
    await runtime?.exited;
    runtime = undefined;
  };

  beforeAll(async () => {
    server = fleet.server;
    apiKey = fleet.device(DEVICE).apiKey;
    await startRuntime();
    alice = fleet.user('alice').home;
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('control characters from the device', () => {
    let folder: string;
    beforeAll(() => {
      folder = join(dir, 'hostile');
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, HOSTILE_NAME), 'x');
    });

    it('--json escapes C1 controls and bidi overrides as \\uXXXX, and the name still parses back', async () => {
      const result = await svc(alice, ['ls', `${DEVICE}:${folder}`, '--json']);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
      expect(result.stdout).toContain('"name": "report\\u009b2J\\u202etxt.exe\\u2066.log"');
      expect((JSON.parse(result.stdout) as { name: string }[]).map((entry) => entry.name)).toEqual([HOSTILE_NAME]);
    });

    it('svc mcp strips them from names and from command output', async () => {
      const mcp = await startMcp(alice.env, [], alice.dir);
      try {
        const listing = await mcp.client.callTool({ name: 'device_ls', arguments: { path: `${DEVICE}:${folder}` } });
        const text = (listing.content as { text: string }[])[0].text;
        expect(text).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]|\\u00[89]|\\u20[26]/);
        expect(text).toContain('"report2Jtxt.exe.log"');
        const exec = await callTool<{ output: string }>(mcp, 'device_exec', { device: DEVICE, command: ['printf', 'left\u202Eright\u2067done\u0085.'] });
        expect(exec.output).toBe('leftrightdone.');
      } finally {
        await mcp.close();
      }
    });
  });

  describe('svc ssh-config', () => {
    it('prints the Host block for a device that exists, and refuses one that does not (exit 2)', async () => {
      expect(await svcJson(alice, ['ssh-config', DEVICE, '--user', 'pi'])).toMatchObject({ host: DEVICE, device: DEVICE, user: 'pi', port: 22 });
      const missing = await svc(alice, ['ssh-config', 'md-nope']);
      expect(missing.code).toBe(2);
      expect(missing.stdout).toBe('');
      expect(missing.stderr).toMatch(/^Error: Device not found/);
    });
  });

  describe('svc devices logs --since/--until', () => {
    it('takes relative times and day words as journalctl does, plus ISO dates, and refuses anything else clearly', async () => {
      type Logs = { logs: { timestamp: string; action: string }[] };
      const all = (await svcJson<Logs>(alice, ['devices', 'logs', DEVICE])).logs;
      expect(all.length).toBeGreaterThan(0);
      for (const since of ['1h', '30m', '2d', '-1h', '1h 30m ago', 'yesterday', new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)]) {
        expect((await svcJson<Logs>(alice, ['devices', 'logs', DEVICE, '--since', since])).logs).toEqual(all);
      }
      // The server's clock stands still in this test: every entry is from its start, a moment ago.
      for (const range of [['--since', 'now'], ['--since', 'tomorrow'], ['--until', '1h'], ['--since', '2d', '--until', 'yesterday']]) {
        expect((await svcJson<Logs>(alice, ['devices', 'logs', DEVICE, ...range])).logs).toEqual([]);
      }
      expect((await svcJson<Logs>(alice, ['devices', 'logs', DEVICE, '--since', '1d', '--until', '+1h'])).logs).toEqual(all);

      const refused = await svc(alice, ['devices', 'logs', DEVICE, '--since', 'soon']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^Error: Parsing --since\n {2}"soon" is not a time: use 2026-11-01, 2026-11-01T12:00:00Z, 30m, 1h, 2d, "1h 30m ago", today, yesterday or now\nSee more help with svc devices logs --help\n$/);
    });
  });

  describe('svc shell when the connection ends', () => {
    it('says "Connection to <device> closed." on a fresh line and exits 255 when the runtime stops', async () => {
      const term = terminal(alice, ['shell', DEVICE]);
      // The prompt is what is on screen, its line unfinished, when the connection ends.
      term.pty.write('PS1="prompt-$((6*7))> "\r');
      await term.waitFor(/prompt-42> $/);
      await stopRuntime();
      expect(await term.exited).toBe(255);
      // On a line of its own: whatever the shell printed as it was hung up ended with a line break.
      expect(term.text()).toMatch(/prompt-42> [^\n]*\n(\x1b\[\?2004l)?Connection to md-1 closed\.\r*\n$/);
    });

    it('still says "Connection to <device> closed." and exits 255 when the runtime stops and the shell ignores the hang-up (killed, not hung up)', async () => {
      // A shell slow to die (a loaded machine, or a trap) is killed after the grace period: the EXIT
      // still says SIGHUP, as docs/protocol.md promises, not SIGKILL (which svc would exit 137 on).
      if (!runtime) await startRuntime();
      const term = terminal(alice, ['shell', DEVICE]);
      term.pty.write(`trap '' HUP; PS1="prompt-$((6*7))> "\r`);
      await term.waitFor(/prompt-42> $/);
      await stopRuntime();
      expect(await term.exited).toBe(255);
      expect(term.text()).toMatch(/prompt-42> [^\n]*\n(\x1b\[\?2004l)?Connection to md-1 closed\.\r*\n$/);
    });

    it('says "Connection to the server lost" on a fresh line and exits 255 when the connection to the server drops', async () => {
      await startRuntime();
      const path = await startCuttablePath(server);
      try {
        const term = terminal({ ...alice, env: { ...alice.env, SVC_SERVER_URL: path.url } }, ['shell', DEVICE]);
        term.pty.write('PS1="prompt-$((6*7))> "\r');
        await term.waitFor(/prompt-42> $/);
        path.cut();
        expect(await term.exited).toBe(255);
        expect(term.text()).toMatch(/prompt-42> \r*\nError: Connection to the server lost\r*\n$/);
      } finally {
        await path.close();
        await stopRuntime();
      }
    });

    // Last: it stops the server.
    it('starts the error on a fresh line, not after the remote prompt, and exits 255 when the server dies', async () => {
      await startRuntime();
      const term = terminal(alice, ['shell', DEVICE]);
      term.pty.write('PS1="prompt-$((6*7))> "\r');
      await term.waitFor(/prompt-42> $/);
      await server.close();
      expect(await term.exited).toBe(255);
      // The server closes the device's tunnel first (the stream ends) or the connection drops.
      expect(term.text()).toMatch(/prompt-42> \r*\nError: Connection (to md-1 closed|to the server lost)[^\n]*\r*\n$/);
    });
  });
});
