import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { acquireRuntimeLock, RuntimeLock } from '../supervisor/runtime-lock';
import { RuntimeStatusFile } from '../supervisor/runtime-status';
import { serviceCommand } from './service-command';
import { quoteArgument, UNIT_NAME } from './systemd-unit';
import { parseUnit, splitWords } from './systemd-words';

/**
 * A stand-in for systemctl (systemd does not run in this sandbox): records its calls, answers like
 * systemd; `show` prints what the test put in `unit(…)` (by default: the unit runs, its main
 * process being this test's, which `runtimeOnline` makes the holder of the runtime lock).
 */
function stubSystemctl(dir: string): { path: string; calls(): string[]; unit(properties: string): void } {
  const log = join(dir, 'calls.log');
  const path = join(dir, 'systemctl');
  const show = join(dir, 'show.txt');
  writeFileSync(
    path,
    `#!/bin/sh\necho "$*" >> ${log}\ncase "$1" in\n  is-active) echo active ;;\n  is-enabled) echo enabled ;;\n  show) cat ${show} ;;\nesac\nexit 0\n`,
  );
  chmodSync(path, 0o755);
  const unit = (properties: string) => writeFileSync(show, `${properties.trim().split(/\s+/).join('\n')}\n`);
  unit(`ActiveState=active SubState=running MainPID=${process.pid} NRestarts=0`);
  return { path, unit, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
}

/** For tests about what `enable` writes: it reports failure at once rather than wait for a runtime that will not come. */
const NO_WAIT = { timeoutMs: 0, intervalMs: 10 };
const SHOW = `show --property=ActiveState,SubState,Result,MainPID,ExecMainCode,ExecMainStatus,NRestarts ${UNIT_NAME}`;

function io() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const text = { out: '', err: '' };
  stdout.on('data', (d) => (text.out += d));
  stderr.on('data', (d) => (text.err += d));
  return { io: { stdin: new PassThrough(), stdout, stderr }, text };
}

describe('svc runtime enable|disable|status', () => {
  let dir: string;
  let unitDir: string;
  let systemctl: ReturnType<typeof stubSystemctl>;
  let env: Record<string, string>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-systemd-'));
    unitDir = join(dir, 'units');
    mkdirSync(unitDir);
    systemctl = stubSystemctl(dir);
    env = { HOME: dir, SVC_CONFIG_DIR: join(dir, 'config'), SVC_SYSTEMD_UNIT_DIR: unitDir, SVC_SYSTEMCTL: systemctl.path };
  });
  let held: { lock: RuntimeLock; status: RuntimeStatusFile }[];
  beforeEach(() => (held = []));
  afterEach(() => {
    for (const { lock, status } of held) {
      status.remove();
      lock.release();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** This process as the unit's runtime: it holds the lock of `configDir` and says it is online. */
  function runtimeOnline(configDir: string): void {
    const lock = acquireRuntimeLock(configDir);
    const status = new RuntimeStatusFile(configDir, 'https://svc.example.com', (error) => {
      throw error;
    });
    status.update({ state: 'online', carrier: 'tcp', device_id: 'edge-1', connected_at: new Date().toISOString() });
    held.push({ lock, status });
  }

  it('installs a unit running `run` with the given options, reloads, enables and restarts it, and says so once its runtime is online', async () => {
    // nobody may create its configuration directory here: the unit's account is checked (below).
    chmodSync(dir, 0o777);
    mkdirSync(env.SVC_CONFIG_DIR, { mode: 0o777 });
    chmodSync(env.SVC_CONFIG_DIR, 0o777);
    runtimeOnline(env.SVC_CONFIG_DIR);
    const { io: streams, text } = io();
    const code = await serviceCommand('enable', ['--server', 'https://svc.example.com:8443/', '--ca', 'relative/ca.pem', '--transport', 'tcp', '--user', 'nobody'], env, streams);
    expect(text.err).toBe('');
    expect(code).toBe(0);
    expect(text.out).toContain(`${UNIT_NAME} enabled and running (pid ${process.pid}, online over tcp)`);
    const unitPath = join(unitDir, UNIT_NAME);
    const unit = readFileSync(unitPath, 'utf8');
    expect(statSync(unitPath).mode & 0o777).toBe(0o644);
    expect(unit).toContain(`ExecStart=${quoteArgument(process.execPath)} `);
    expect(unit).toContain('"run" "--server" "https://svc.example.com:8443/" "--ca" ');
    expect(unit).toContain(quoteArgument(join(process.cwd(), 'relative/ca.pem')));
    expect(unit).toContain('User=nobody');
    expect(unit).toContain(`Environment=${quoteArgument(`SVC_CONFIG_DIR=${join(dir, 'config')}`)}`);
    expect(unit).toMatch(/^KillMode=control-group$/m);
    expect(systemctl.calls()).toEqual([SHOW, 'daemon-reload', `enable ${UNIT_NAME}`, `restart ${UNIT_NAME}`, SHOW]);
  });

  it('writes a unit that does not restart on the exits a restart cannot mend, and gives up on a crash loop', async () => {
    await serviceCommand('enable', ['--server', 'http://localhost:8085'], env, io().io, NO_WAIT);
    const unit = parseUnit(readFileSync(join(unitDir, UNIT_NAME), 'utf8'));
    expect(unit.get('Service.Restart')).toEqual(['always']);
    expect(unit.get('Service.RestartSec')).toEqual(['5']);
    // 2 configuration · 3 key refused · 4 another runtime holds the lock (runtime-exit.ts).
    expect(splitWords(unit.get('Service.RestartPreventExitStatus')![0])).toEqual(['2', '3', '4']);
    expect(unit.get('Unit.StartLimitIntervalSec')).toEqual(['60']);
    expect(unit.get('Unit.StartLimitBurst')).toEqual(['3']);
  });

  it("runs the runtime's own entry, and writes options given as variables as flags, but never the API key", async () => {
    const withVariables = { ...env, SVC_SERVER_URL: 'https://from-env.example.com', SVC_CA_FILE: 'env-ca.pem', OWNER_REFERENCE: 'org:acme', SVC_API_KEY: 'svc_secret_key_0123456789abcdef' };
    runtimeOnline(env.SVC_CONFIG_DIR);
    expect(await serviceCommand('enable', ['--transport', 'tcp'], withVariables, io().io)).toBe(0);
    const unit = readFileSync(join(unitDir, UNIT_NAME), 'utf8');
    expect(unit).toContain(`ExecStart=${quoteArgument(process.execPath)} ${quoteArgument(realpathSync(require.resolve('../main')))} "run" "--server" "https://from-env.example.com" "--owner" "org:acme" "--ca" ${quoteArgument(resolve('env-ca.pem'))} "--transport" "tcp"\n`);
    expect(unit).not.toContain('svc_secret');
  });

  it("status looks for the runtime in the unit's account's home when the unit runs as another user", async () => {
    const { SVC_CONFIG_DIR: _ignored, ...noConfigDir } = env;
    await serviceCommand('enable', ['--server', 'http://localhost:8085', '--user', 'nobody', '--force'], noConfigDir, io().io, NO_WAIT);
    const shown = io();
    await serviceCommand('status', ['--json'], noConfigDir, shown.io);
    const home = readFileSync('/etc/passwd', 'utf8').split('\n').find((line) => line.startsWith('nobody:'))!.split(':')[5];
    expect(JSON.parse(shown.text.out).registration.credentials).toBe(join(home, '.config', 'svc', 'credentials.json'));
  });

  it('writes a unit that systemd itself accepts (systemd-analyze verify)', async () => {
    // systemd's own parser (package systemd; .ci/run installs it when missing). It needs no running systemd.
    await serviceCommand('enable', ['--server', 'http://localhost:8085', '--pin', `sha256:${'ab'.repeat(32)}`], env, io().io, NO_WAIT);
    const verify = spawnSync('systemd-analyze', ['verify', join(unitDir, UNIT_NAME)], { encoding: 'utf8' });
    expect(verify.error).toBeUndefined();
    // verify exits 0 even on bad values; what it has to say goes to stderr.
    expect(verify.stderr.split('\n').filter((line) => line.includes(UNIT_NAME) || /ignoring|invalid|unknown/i.test(line))).toEqual([]);
  });

  it('refuses bad options before writing anything', async () => {
    const { io: streams, text } = io();
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085', '--transport', 'carrier-pigeon'], env, streams)).toBe(2);
    expect(text.err).toMatch(/transport/);
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085', '--reregister'], env, streams)).toBe(2);
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085', '--user', 'root; rm -rf /'], env, streams)).toBe(2);
    expect(existsSync(join(unitDir, UNIT_NAME))).toBe(false);
    expect(systemctl.calls()).toEqual([]);
  });

  it('refuses while another runtime runs on its configuration directory; with --force, reports that the unit\'s runtime exited 4 for good', async () => {
    runtimeOnline(env.SVC_CONFIG_DIR);
    // Not the unit's: systemd runs no process for it.
    systemctl.unit('ActiveState=inactive SubState=dead MainPID=0');
    const refused = io();
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085'], env, refused.io, NO_WAIT)).toBe(1);
    expect(refused.text.err).toContain(`a runtime is already running on ${env.SVC_CONFIG_DIR} (pid ${process.pid}), not started by ${UNIT_NAME}: the unit's runtime would exit 4 (another runtime is already running)`);
    expect(refused.text.err).toMatch(/Nothing was installed; --force installs the unit anyway/);
    expect(existsSync(join(unitDir, UNIT_NAME))).toBe(false);
    expect(systemctl.calls()).toEqual([SHOW]);

    // What systemd shows once the unit's runtime met that lock: failed, exit status 4, no restart.
    systemctl.unit('ActiveState=failed SubState=failed Result=exit-code MainPID=0 ExecMainCode=1 ExecMainStatus=4 NRestarts=0');
    const forced = io();
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085', '--force'], env, forced.io)).toBe(1);
    expect(forced.text.err).toMatch(/^Warning: a runtime is already running on .* \(installing anyway: --force\)\.$/m);
    expect(forced.text.err).toContain(`${UNIT_NAME} is enabled, but the runtime did not stay up: it exited with status 4 (another runtime is already running); systemd does not restart it after that.`);
    expect(forced.text.out).not.toMatch(/running|started/);
    expect(existsSync(join(unitDir, UNIT_NAME))).toBe(true);
  });

  it('refuses an account that could not create or write its configuration directory, or that does not exist', async () => {
    const { SVC_CONFIG_DIR: _ignored, ...noConfigDir } = env;
    const nobody = io();
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085', '--user', 'nobody'], noConfigDir, nobody.io, NO_WAIT)).toBe(1);
    const home = readFileSync('/etc/passwd', 'utf8').split('\n').find((line) => line.startsWith('nobody:'))!.split(':')[5];
    expect(nobody.text.err).toContain(`the runtime runs as nobody and could not use its configuration directory ${join(home, '.config', 'svc')}: nobody may not create`);
    expect(nobody.text.err).toMatch(/choose another --user, or set SVC_CONFIG_DIR/);

    // A directory nobody may not enter (mkdtemp's are 0700), though it may write the one inside it.
    mkdirSync(env.SVC_CONFIG_DIR, { mode: 0o777 });
    chmodSync(env.SVC_CONFIG_DIR, 0o777);
    const shut = io();
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085', '--user', 'nobody'], env, shut.io, NO_WAIT)).toBe(1);
    expect(shut.text.err).toContain(`nobody may not enter ${dir}`);

    const unknown = io();
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085', '--user', 'no-such-account-7'], env, unknown.io, NO_WAIT)).toBe(1);
    expect(unknown.text.err).toContain('--user no-such-account-7: no such account in /etc/passwd (systemd would fail with 217/USER)');
    expect(existsSync(join(unitDir, UNIT_NAME))).toBe(false);
  });

  it('says what is wrong when the unit cannot be written or systemd is missing', async () => {
    const unwritable = io();
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085'], { ...env, SVC_SYSTEMD_UNIT_DIR: join(dir, 'missing') }, unwritable.io, NO_WAIT)).toBe(1);
    expect(unwritable.text.err).toMatch(/cannot write .*svc-runtime\.service/);
    const noSystemd = io();
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085'], { ...env, SVC_SYSTEMCTL: join(dir, 'no-such-systemctl') }, noSystemd.io, NO_WAIT)).toBe(1);
    expect(noSystemd.text.err).toMatch(/not found: this system does not run systemd/);
  });

  it('reports the unit and the registration, and disable removes the unit', async () => {
    const before = io();
    expect(await serviceCommand('status', [], env, before.io)).toBe(1);
    expect(before.text.out).toMatch(/not installed/);
    expect(before.text.out).toMatch(/registration: +not registered/);
    expect(before.text.out).toMatch(/runtime: +not running/);

    await serviceCommand('enable', ['--server', 'http://localhost:8085'], env, io().io, NO_WAIT);
    mkdirSync(env.SVC_CONFIG_DIR);
    writeFileSync(join(env.SVC_CONFIG_DIR, 'credentials.json'), JSON.stringify({ device_credentials: { api_key: 'svc_x', device_id: 'edge-7' } }), { mode: 0o600 });
    const running = io();
    expect(await serviceCommand('status', [], env, running.io)).toBe(0);
    expect(running.text.out).toMatch(/enabled: +enabled/);
    expect(running.text.out).toMatch(/active: +active/);
    expect(running.text.out).toMatch(/registered as edge-7/);
    expect(running.text.out).not.toContain('svc_x');

    const disabled = io();
    expect(await serviceCommand('disable', [], env, disabled.io)).toBe(0);
    expect(existsSync(join(unitDir, UNIT_NAME))).toBe(false);
    expect(systemctl.calls().slice(-2)).toEqual([`disable --now ${UNIT_NAME}`, 'daemon-reload']);
  });
});

describe('quoteArgument', () => {
  it('keeps any path or URL exactly, escaping what systemd would interpret', () => {
    expect(quoteArgument('/opt/my dir/ca.pem')).toBe('"/opt/my dir/ca.pem"');
    expect(quoteArgument('100%$HOME"\\')).toBe('"100%%$$HOME\\"\\\\"');
  });

  it('refuses control characters, which a unit line cannot carry', () => {
    expect(() => quoteArgument('a\nExecStartPre=/bin/evil')).toThrow(/control character/);
  });
});
