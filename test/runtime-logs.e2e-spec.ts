/**
 * `svc runtime run` logs for whoever reads them: readable lines on a terminal (a real PTY), JSON
 * lines into a pipe (journald, log collectors). The runtime is pointed at a closed port, so it
 * logs its start and its failing registration attempts until it is stopped.
 * Not on useFleet: no server; only the runtime's own log lines matter.
 */
import { spawn as spawnPty } from '@lydell/node-pty';
import { join } from 'node:path';
import { collect, CliHome, cliHome, spawnSvc, SVC_BIN } from './fixtures/svc-cli';

const WAIT_MS = 30_000;

/** Loopback port 1, where nothing listens: the runtime's registration fails there until it is stopped. */
const CLOSED_PORT_URL = 'http://127.0.0.1:1';

describe('runtime logs: readable on a terminal, JSON otherwise (real svc binary)', () => {
  let home: CliHome;
  let args: string[];

  beforeAll(() => {
    home = cliHome({ url: CLOSED_PORT_URL });
    home.env.SVC_CONFIG_DIR = join(home.dir, 'device');
    args = ['runtime', 'run', '--owner', 'user:logs@example.test', '--device-id', 'logs-1', '--poll-interval', '100ms'];
  });
  afterAll(() => home?.remove());

  /** Runs the runtime in a PTY until `until` matches its output, then stops it with SIGTERM. */
  async function onTerminal(env: Record<string, string>, until: RegExp): Promise<{ code: number; output: string }> {
    const pty = spawnPty(process.execPath, [SVC_BIN, ...args], { name: 'xterm', cols: 200, rows: 30, cwd: home.dir, env: { ...home.env, ...env } });
    let output = '';
    const exited = new Promise<{ code: number; output: string }>((resolve) => pty.onExit(({ exitCode }) => resolve({ code: exitCode, output })));
    const timer = setTimeout(() => pty.kill('SIGKILL'), WAIT_MS);
    let stopped = false;
    pty.onData((data) => {
      output += data;
      // Once, as below: a second SIGTERM could land after the runtime let go of its handler.
      if (!stopped && until.test(output)) {
        stopped = true;
        pty.kill('SIGTERM');
      }
    });
    const result = await exited;
    clearTimeout(timer);
    return result;
  }

  it('prints "time LEVEL message key=value" lines on a terminal, and no JSON', async () => {
    const { code, output } = await onTerminal({}, /registration request failed/);
    expect(code).toBe(0);
    const lines = output.split(/\r?\n/);
    expect(lines).toContainEqual(expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} INFO  runtime starting version=\S+ server=http:\/\/127\.0\.0\.1:\d+ credentials=\S+$/));
    expect(lines).toContainEqual(expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} WARN  registration request failed; retrying error=".+"$/));
    expect(lines).toContainEqual(expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} INFO  stopping signal=SIGTERM$/));
    expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
  });

  it('colours the level on a colour terminal unless NO_COLOR is set', async () => {
    const colored = await onTerminal({ TERM: 'xterm-256color', NO_COLOR: '' }, /runtime starting/);
    expect(colored.output).toContain('\x1b[32mINFO \x1b[0m runtime starting');
    const plain = await onTerminal({ TERM: 'xterm-256color', NO_COLOR: '1' }, /runtime starting/);
    expect(plain.output).toContain(' INFO  runtime starting');
    expect(plain.output).not.toContain('\x1b[32m');
  });

  it('writes one JSON object per line into a pipe', async () => {
    const child = spawnSvc(home, args);
    const done = collect(child, args);
    let seen = '';
    let stopped = false;
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      // Once: a second SIGTERM, landing after the runtime let go of its handler, would kill it outright.
      if (!stopped && /registration request failed/.test(seen)) {
        stopped = true;
        child.kill('SIGTERM');
      }
    });
    const result = await done;
    expect(result.code).toBe(0);
    const lines = result.stderr.trim().split('\n');
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries[0]).toMatchObject({ level: 'info', msg: 'runtime starting', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(entries).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'registration request failed; retrying', error: expect.any(String) }));
    expect(entries).toContainEqual(expect.objectContaining({ msg: 'stopping', signal: 'SIGTERM' }));
  });
});
