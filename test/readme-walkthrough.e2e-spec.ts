/**
 * README.md's "Try it" walkthrough and its "Deploy something" sequel, read from the README itself
 * and run as written: the server as
 * `npm start` runs it (a real process with its development identity provider), `svc` installed
 * with the README's own `npm install -g` line (into a private prefix), then every command of the
 * walkthrough through bash, in order. Only what a reader would fill in is substituted: the ports
 * this run got, the data directory, the request id and device id shown by `svc devices list`,
 * and the browser sign-in.
 * Not on useFleet: the server runs as `npm start` runs it (a real process), as the README says.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { approveInBrowser } from './fixtures/oidc';
import { freePort, freeTunnelPort } from './fixtures/free-port';

const ROOT = resolve(__dirname, '..');
const EMAIL = 'me@example.com';

/** The bash blocks of the README section headed `heading`, up to the next "## ". */
function sectionBlocks(heading: string): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/**
 * The command lines of a section, as a reader types them: continued lines joined, a here-document
 * kept with its command, comments dropped.
 */
function sectionCommands(heading: string): string[] {
  const commands: string[] = [];
  let heredoc: { end: string; text: string } | undefined;
  for (const raw of sectionBlocks(heading).flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n'))) {
    if (heredoc) {
      heredoc.text += `\n${raw}`;
      if (raw === heredoc.end) {
        commands.push(heredoc.text);
        heredoc = undefined;
      }
      continue;
    }
    const line = raw.replace(/\s+#.*$/, '').trim();
    if (line.length === 0 || line.startsWith('#')) continue;
    const opener = /<<-?'?(\w+)'?/.exec(line);
    if (opener) heredoc = { end: opener[1], text: line };
    else commands.push(line);
  }
  return commands;
}

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Proc {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  if (options.input !== undefined) child.stdin!.end(options.input);
  const exited = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
  return {
    child,
    output: () => out,
    exited,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(out);
        if (match) return match;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${pattern} in the output of ${args.join(' ')} (exit ${child.exitCode}):\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

describe('README walkthrough, as written', () => {
  let dir: string;
  let dataDir: string;
  let server: Proc;
  let runtime: Proc | undefined;
  let env: NodeJS.ProcessEnv;
  let restPort: number;
  const substitutions: [string | RegExp, string][] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
    dataDir = join(dir, 'data');
    const home = join(dir, 'home');
    const work = join(dir, 'work');
    mkdirSync(home);
    mkdirSync(work);
    restPort = await freePort();
    const idpPort = await freePort();
    const tunnelPort = await freeTunnelPort();
    server = start(process.execPath, [join(ROOT, 'apps/server/dist/main.js')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: home, DATA_DIR: dataDir, REST_PORT: String(restPort), DEV_IDP_PORT: String(idpPort), UNIFIED_PORT: String(tunnelPort), CERTIFICATE_PATH: join(dataDir, 'certs') },
    });
    await server.waitFor(/"msg":"listening"|listening/i, 30_000).catch(() => undefined);
    for (let i = 0; i < 300; i++) {
      if (await fetch(`http://localhost:${restPort}/health`).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const prefix = join(dir, 'prefix');
    env = {
      PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
      HOME: home,
      npm_config_prefix: prefix,
      // The reader's server is at localhost:8085; this run's is on a free port.
      SVC_SERVER_URL: `http://localhost:${restPort}`,
      BROWSER: '',
      DISPLAY: '',
      NO_COLOR: '1',
    };
    substitutions.push(['http://localhost:8085', `http://localhost:${restPort}`], ['localhost:8085', `localhost:${restPort}`], ['data/tls/cert.pem', join(dataDir, 'tls', 'cert.pem')]);
  });

  afterAll(async () => {
    rmSync('/tmp/notes.txt', { force: true });
    for (const proc of [runtime, server]) {
      if (proc && proc.child.exitCode === null) {
        proc.child.kill('SIGTERM');
        await proc.exited;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const fill = (line: string) => substitutions.reduce<string>((text, [from, to]) => text.split(from as string).join(to), line);
  const bash = (line: string, input?: string) => start('bash', ['-c', fill(line)], { cwd: join(dir, 'work'), env, input });

  it('every command works as written', async () => {
    const commands = sectionCommands('Try it');
    expect(commands[0]).toBe('npm install -g ./apps/cli');
    let fingerprint = '';
    for (const line of commands) {
      if (line.startsWith('npm install -g ./apps/cli')) {
        // The reader runs it in the checkout.
        const install = start('bash', ['-c', line], { cwd: ROOT, env });
        expect(await install.exited).toBe(0);
      } else if (line === 'svc login') {
        const login = bash(line);
        const [, url] = await login.waitFor(/\(or open (\S+)\)/);
        await approveInBrowser(url, EMAIL);
        expect(await login.exited).toBe(0);
      } else if (line.startsWith('svc runtime run')) {
        runtime = bash(line);
        [, fingerprint] = await runtime.waitFor(/Key fingerprint: (\S+)/);
      } else if (line.startsWith('svc devices approve')) {
        const result = bash(line);
        expect(await result.exited).toBe(0);
        await runtime!.waitFor(/tunnel up/);
      } else if (line.startsWith('svc shell')) {
        const shell = bash(line, 'echo shell-says-$((6*7))\nexit\n');
        expect(await shell.exited).toBe(0);
        expect(shell.output()).toContain('shell-says-42');
      } else if (line.startsWith('svc forward')) {
        const forward = bash(line);
        await forward.waitFor(/8022/);
        await new Promise<void>((res, rej) => connect(8022, '127.0.0.1', function (this: import('node:net').Socket) { this.destroy(); res(); }).once('error', rej));
        forward.child.kill('SIGINT');
        await forward.exited;
      } else {
        let result = bash(line);
        if (line === 'svc devices list' && fingerprint && !substitutions.some(([from]) => from === '<request id>')) {
          // The runtime prints its fingerprint as it sends the request: list until the request is there.
          for (let i = 0; i < 50 && (await result.exited) === 0 && !result.output().includes(fingerprint); i++) {
            await new Promise((r) => setTimeout(r, 100));
            result = bash(line);
          }
        }
        const code = await result.exited;
        expect({ line, code, output: result.output() }).toEqual({ line, code: 0, output: expect.any(String) });
        if (line === 'svc devices list' && !substitutions.some(([from]) => from === '<request id>')) {
          // The pending row: its fingerprint is the one the runtime printed; its ID is the request id.
          const row = result.output().split('\n').find((l) => l.includes(fingerprint));
          expect(row).toBeDefined();
          substitutions.push(['<request id>', row!.split(/\s+/)[0]]);
        } else if (line === 'svc devices list') {
          const row = result.output().split('\n').find((l) => /\sonline\s/.test(l));
          expect(row).toBeDefined();
          substitutions.push(['<device>', row!.split(/\s+/)[0]]);
        } else if (line.startsWith('svc exec')) {
          expect(result.output()).toMatch(/^Linux /m);
        } else if (line.startsWith('svc ls')) {
          expect(result.output()).toContain('notes.txt');
        } else if (line.startsWith('svc devices logs')) {
          expect(result.output()).toMatch(/device\.exec/);
        }
      }
    }
    expect(readFileSync('/tmp/notes.txt', 'utf8')).toBe('hello\n');
  }, 180_000);

  it('"Deploy something" works as written on the walkthrough\'s device', async () => {
    expect(substitutions.some(([from]) => from === '<device>')).toBe(true);
    for (const command of sectionCommands('Deploy something')) {
      if (command.startsWith('svc deployments status')) {
        // "healthy once the probe passes": the reader looks again until it does.
        let result = bash(command);
        for (let i = 0; i < 60 && (await result.exited) !== 0; i++) {
          await new Promise((r) => setTimeout(r, 500));
          result = bash(command);
        }
        expect({ command, code: await result.exited, output: result.output() }).toEqual({ command, code: 0, output: expect.stringMatching(/running[\s\S]*healthy/) });
      } else if (command.includes('--follow')) {
        const follow = bash(command);
        await follow.waitFor(/GET \/ HTTP/, 30_000); // the health probe's requests, logged by the service
        follow.child.kill('SIGINT');
        expect(await follow.exited).toBe(0);
      } else {
        const result = bash(command);
        expect({ command, code: await result.exited, output: result.output() }).toEqual({ command, code: 0, output: expect.any(String) });
      }
    }
  }, 120_000);
});
