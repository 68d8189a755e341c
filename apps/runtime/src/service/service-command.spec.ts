import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { serviceCommand } from './service-command';
import { quoteArgument, UNIT_NAME } from './systemd-unit';

/** A stand-in for systemctl (systemd does not run in this sandbox): records its calls, answers like systemd. */
function stubSystemctl(dir: string): { path: string; calls(): string[] } {
  const log = join(dir, 'calls.log');
  const path = join(dir, 'systemctl');
  writeFileSync(
    path,
    `#!/bin/sh\necho "$*" >> ${log}\ncase "$1" in\n  is-active) echo active ;;\n  is-enabled) echo enabled ;;\nesac\nexit 0\n`,
  );
  chmodSync(path, 0o755);
  return { path, calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
}

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
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('installs a unit running `run` with the given options, then reloads, enables and starts it', async () => {
    const { io: streams, text } = io();
    const code = await serviceCommand('enable', ['--server', 'https://svc.example.com:8443/', '--ca', 'relative/ca.pem', '--transport', 'tcp', '--user', 'edge'], env, streams);
    expect(text.err).toBe('');
    expect(code).toBe(0);
    const unitPath = join(unitDir, UNIT_NAME);
    const unit = readFileSync(unitPath, 'utf8');
    expect(statSync(unitPath).mode & 0o777).toBe(0o644);
    expect(unit).toContain(`ExecStart=${quoteArgument(process.execPath)} `);
    expect(unit).toContain('"run" "--server" "https://svc.example.com:8443/" "--ca" ');
    expect(unit).toContain(quoteArgument(join(process.cwd(), 'relative/ca.pem')));
    expect(unit).toContain('User=edge');
    expect(unit).toContain(`Environment=${quoteArgument(`SVC_CONFIG_DIR=${join(dir, 'config')}`)}`);
    expect(unit).toMatch(/^KillMode=control-group$/m);
    expect(unit).toMatch(/^Restart=always$/m);
    expect(systemctl.calls()).toEqual(['daemon-reload', `enable --now ${UNIT_NAME}`]);
  });

  it("runs the runtime's own entry, and writes options given as variables as flags, but never the API key", async () => {
    const withVariables = { ...env, SVC_SERVER_URL: 'https://from-env.example.com', SVC_CA_FILE: 'env-ca.pem', OWNER_REFERENCE: 'org:acme', SVC_API_KEY: 'svc_secret_key_0123456789abcdef' };
    expect(await serviceCommand('enable', ['--transport', 'tcp'], withVariables, io().io)).toBe(0);
    const unit = readFileSync(join(unitDir, UNIT_NAME), 'utf8');
    expect(unit).toContain(`ExecStart=${quoteArgument(process.execPath)} ${quoteArgument(realpathSync(require.resolve('../main')))} "run" "--server" "https://from-env.example.com" "--owner" "org:acme" "--ca" ${quoteArgument(resolve('env-ca.pem'))} "--transport" "tcp"\n`);
    expect(unit).not.toContain('svc_secret');
  });

  it("status looks for the runtime in the unit's account's home when the unit runs as another user", async () => {
    const { SVC_CONFIG_DIR: _ignored, ...noConfigDir } = env;
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085', '--user', 'nobody'], noConfigDir, io().io)).toBe(0);
    const shown = io();
    await serviceCommand('status', ['--json'], noConfigDir, shown.io);
    const home = readFileSync('/etc/passwd', 'utf8').split('\n').find((line) => line.startsWith('nobody:'))!.split(':')[5];
    expect(JSON.parse(shown.text.out).registration.credentials).toBe(join(home, '.config', 'svc', 'credentials.json'));
  });

  it('writes a unit that systemd itself accepts (systemd-analyze verify)', async () => {
    // systemd's own parser (package systemd; .ci/run installs it when missing). It needs no running systemd.
    await serviceCommand('enable', ['--server', 'http://localhost:8085', '--pin', `sha256:${'ab'.repeat(32)}`], env, io().io);
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

  it('says what is wrong when the unit cannot be written or systemd is missing', async () => {
    const unwritable = io();
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085'], { ...env, SVC_SYSTEMD_UNIT_DIR: join(dir, 'missing') }, unwritable.io)).toBe(1);
    expect(unwritable.text.err).toMatch(/cannot write .*svc-runtime\.service/);
    const noSystemd = io();
    expect(await serviceCommand('enable', ['--server', 'http://localhost:8085'], { ...env, SVC_SYSTEMCTL: join(dir, 'no-such-systemctl') }, noSystemd.io)).toBe(1);
    expect(noSystemd.text.err).toMatch(/not found: this system does not run systemd/);
  });

  it('reports the unit and the registration, and disable removes the unit', async () => {
    const before = io();
    expect(await serviceCommand('status', [], env, before.io)).toBe(1);
    expect(before.text.out).toMatch(/not installed/);
    expect(before.text.out).toMatch(/registration: +not registered/);
    expect(before.text.out).toMatch(/runtime: +not running/);

    await serviceCommand('enable', ['--server', 'http://localhost:8085'], env, io().io);
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
