/**
 * The runtime's life as an operator sees it, through the real `svc` binary, a real server and
 * real runtime processes: the unit `svc runtime enable` writes really starts a runtime (its
 * ExecStart split and unquoted the way systemd does, then run), an approval given while the
 * runtime is stopped is collected when it starts again, and `svc runtime status` reports the
 * runtime that runs.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { environmentOf, execStartArgv, parseUnit, splitWords } from '../apps/runtime/src/service/systemd-words';
import { useFleet } from './fixtures/fleet';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { CliHome, cliHome, svc, svcJson } from './fixtures/svc-cli';
import { TestServer } from './fixtures/test-server';
import { eventually as waitUntil } from './fixtures/eventually';

const ALICE = 'alice@runtime-life.test';
const WAIT_MS = 60_000;

interface Listed {
  id: string;
  request_id?: string;
  device_id?: string;
  status: string;
}

describe('runtime lifecycle (real svc, real server, real runtime)', () => {
  const fleet = useFleet({ users: { alice: ALICE }, relay: true });
  let server: TestServer;
  let alice: CliHome;
  const dir = mkdtempSync(join(tmpdir(), 'svc-rt-life-'));
  const runtimes: RuntimeProcess[] = [];
  const children: ChildProcess[] = [];

  beforeAll(() => {
    server = fleet.server;
    alice = fleet.user('alice').home;
  });
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) {
      rt.kill('SIGKILL');
      await rt.exited;
    }
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const eventually = <T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false) => waitUntil(what, check, { timeoutMs: WAIT_MS });

  const listed = async (deviceId: string) => (await svcJson<Listed[]>(alice, ['devices', 'list'])).filter((item) => item.device_id === deviceId || item.id === deviceId);
  const online = (deviceId: string) => eventually(`${deviceId} online`, async () => (await listed(deviceId)).some((item) => item.status === 'online'));

  /**
   * A unit directory and a stand-in systemctl (systemd does not run here): the test plays systemd,
   * running the unit's ExecStart split and unquoted the way systemd does, as systemd would with its
   * own small environment (PATH and the unit's Environment=), and telling `systemctl show` what
   * systemd would then say about the unit.
   */
  function standInSystemd(name: string) {
    const base = join(dir, name);
    const unitDir = join(base, 'units');
    mkdirSync(unitDir, { recursive: true });
    const show = join(base, 'show.txt');
    const systemctl = join(base, 'systemctl');
    writeFileSync(systemctl, `#!/bin/sh\ncase "$1" in\n  show) cat '${show}' 2>/dev/null || printf 'ActiveState=activating\\nSubState=start\\nMainPID=0\\n' ;;\nesac\nexit 0\n`);
    chmodSync(systemctl, 0o755);
    const unitPath = join(unitDir, 'svc-runtime.service');
    return {
      env: { SVC_SYSTEMD_UNIT_DIR: unitDir, SVC_SYSTEMCTL: systemctl },
      unit: () => parseUnit(readFileSync(unitPath, 'utf8')),
      written: () => eventually('the unit to be written', () => existsSync(unitPath)),
      /** Starts the unit's ExecStart; its output is collected in `output()`. */
      start() {
        const unit = parseUnit(readFileSync(unitPath, 'utf8'));
        const environment = environmentOf(unit.get('Service.Environment') ?? []);
        const [program, ...args] = execStartArgv(unit.get('Service.ExecStart')![0], environment);
        const child = spawn(program, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...environment }, stdio: ['ignore', 'pipe', 'pipe'] });
        children.push(child);
        let output = '';
        child.stdout!.on('data', (chunk) => (output += chunk));
        child.stderr!.on('data', (chunk) => (output += chunk));
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        return { child, exited, output: () => output };
      },
      /** What `systemctl show` answers from now on. */
      says: (properties: Record<string, string | number>) => writeFileSync(show, Object.entries(properties).map(([key, value]) => `${key}=${value}\n`).join('')),
    };
  }

  it('the unit `svc runtime enable` writes, its ExecStart run as systemd splits it, starts a runtime that registers and comes online; enable says so once it waits for approval', async () => {
    const systemd = standInSystemd('unit');
    // As an operator types it: the server and CA come from the environment (cliHome sets SVC_SERVER_URL and SVC_CA_FILE).
    const device = cliHome(server, { SVC_CONFIG_DIR: join(dir, 'unit device'), ...systemd.env });
    const enabling = svc(device, ['runtime', 'enable', '--owner', `user:${ALICE}`, '--device-id', 'life-unit', '--transport', 'tcp', '--poll-interval', '200ms']);
    await systemd.written();
    const started = systemd.start();
    systemd.says({ ActiveState: 'active', SubState: 'running', MainPID: started.child.pid!, NRestarts: 0 });
    const requestId = await waitUntil('the registration request', () => /request (req_[A-Za-z0-9_-]+)\)/.exec(started.output())?.[1], {
      timeoutMs: WAIT_MS,
      giveUp: () => (started.child.exitCode === null ? undefined : `the unit's command exited ${started.child.exitCode}:\n${started.output()}`),
      describe: () => `output so far: ${started.output()}`,
    });
    const enabled = await enabling;
    expect(enabled.stderr).toBe('');
    expect(enabled.code).toBe(0);
    expect(enabled.stdout).toContain(`svc-runtime.service enabled and running (pid ${started.child.pid}, waiting for approval: svc devices approve ${requestId})`);
    expect(await listed('life-unit')).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect((await svc(alice, ['devices', 'approve', requestId])).code).toBe(0);
    await online('life-unit');
    expect(started.child.exitCode).toBeNull();
  });

  it('enable refuses while the foreground runtime runs; forced, the unit\'s runtime exits 4, the unit says not to restart on 4, and enable says it did not stay up', async () => {
    const configDir = join(dir, 'foreground');
    const { runtime } = await fleet.addDevice('life-foreground', { owner: 'alice', runtime: { env: { HOME: dir, SVC_CONFIG_DIR: configDir } } });
    runtimes.push(runtime!);
    const systemd = standInSystemd('foreground-unit');
    const device = cliHome(server, { SVC_CONFIG_DIR: configDir, ...systemd.env });

    const refused = await svc(device, ['runtime', 'enable']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`a runtime is already running on ${configDir} (pid ${runtime!.pid}), not started by svc-runtime.service`);
    expect(existsSync(join(systemd.env.SVC_SYSTEMD_UNIT_DIR, 'svc-runtime.service'))).toBe(false);

    const forcing = svc(device, ['runtime', 'enable', '--force']);
    await systemd.written();
    expect(splitWords(systemd.unit().get('Service.RestartPreventExitStatus')![0])).toContain('4');
    const started = systemd.start();
    expect(await started.exited).toBe(4);
    expect(started.output()).toMatch(/Another runtime is already running on this device \(pid \d+/);
    systemd.says({ ActiveState: 'failed', SubState: 'failed', Result: 'exit-code', MainPID: 0, ExecMainCode: 1, ExecMainStatus: 4, NRestarts: 0 });
    const forced = await forcing;
    expect(forced.code).toBe(1);
    expect(forced.stderr).toContain('svc-runtime.service is enabled, but the runtime did not stay up: it exited with status 4 (another runtime is already running); systemd does not restart it after that.');
    expect(forced.stdout).not.toContain('running');
    // The foreground runtime was never disturbed.
    expect(runtime!.child.exitCode).toBeNull();
  });

  it('a runtime restarted after its request was approved while it was stopped collects the key: online, no second request', async () => {
    const configDir = join(dir, 'resume');
    const env = { HOME: dir, SVC_CONFIG_DIR: configDir, SVC_SERVER_URL: server.url, SVC_CA_FILE: server.tunnel!.caFile };
    const first = startRuntimeProcess(['run', '--owner', `user:${ALICE}`, '--device-id', 'life-resume', '--poll-interval', '100ms'], env);
    runtimes.push(first);
    const [, requestId] = await first.waitForLine('stdout', /request (req_[A-Za-z0-9_-]+)\)/);
    first.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')).device_credentials.request_id).toBe(requestId);

    expect((await svc(alice, ['devices', 'approve', requestId])).code).toBe(0);

    const second = startRuntimeProcess(['run', '--owner', `user:${ALICE}`, '--device-id', 'life-resume', '--poll-interval', '100ms'], env);
    runtimes.push(second);
    await second.waitForLine('stdout', /Approved: device life-resume is registered/);
    await second.waitForLog('tunnel up');
    await online('life-resume');
    expect(second.stdout.join('\n')).not.toMatch(/requested/);
    expect((await listed('life-resume')).map((item) => item.status)).toEqual(['online']);
  });

  it('`svc runtime status` reports the running runtime (pid, device, server, carrier, uptime) and exits 0; 1 once it stopped', async () => {
    const configDir = join(dir, 'status');
    const { runtime } = await fleet.addDevice('life-status', { owner: 'alice', runtime: { args: ['--transport', 'quic'], env: { HOME: dir, SVC_CONFIG_DIR: configDir } } });
    const rt = runtime!;
    runtimes.push(rt);
    const device = cliHome(server, { SVC_CONFIG_DIR: configDir, SVC_SYSTEMD_UNIT_DIR: join(dir, 'no-units') });

    const shown = await eventually('status online', async () => {
      const result = await svc(device, ['runtime', 'status']);
      return result.stdout.includes('online over quic') && result;
    });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`runtime: +running \\(pid ${rt.pid}, up \\d+s\\)`));
    expect(shown.stdout).toMatch(/device: +life-status/);
    expect(shown.stdout).toContain(`server:   ${server.url}`);
    expect(shown.stdout).toMatch(/unit: +not installed/);

    const json = await svc(device, ['runtime', 'status', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      runtime: { running: true, pid: rt.pid, uptime_secs: expect.any(Number), status: { state: 'online', carrier: 'quic', device_id: 'life-status', server: server.url } },
      unit: { installed: false },
    });

    rt.kill('SIGKILL');
    await rt.exited;
    const stopped = await svc(device, ['runtime', 'status', '--json']);
    expect(stopped.code).toBe(1);
    expect(JSON.parse(stopped.stdout).runtime).toEqual({ running: false });
  });
});
