/**
 * The runtime's life as an operator sees it, through the real `svc` binary, a real server and
 * real runtime processes: the unit `svc runtime enable` writes really starts a runtime (its
 * ExecStart split and unquoted the way systemd does, then run), an approval given while the
 * runtime is stopped is collected when it starts again, and `svc runtime status` reports the
 * runtime that runs.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { environmentOf, execStartArgv, parseUnit } from '../apps/runtime/src/service/systemd-words';
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

  it('the unit `svc runtime enable` writes, its ExecStart run as systemd splits it, starts a runtime that registers and comes online', async () => {
    const unitDir = join(dir, 'units');
    mkdirSync(unitDir);
    const systemctl = join(dir, 'systemctl');
    writeFileSync(systemctl, '#!/bin/sh\nexit 0\n');
    chmodSync(systemctl, 0o755);
    // As an operator types it: the server and CA come from the environment (cliHome sets SVC_SERVER_URL and SVC_CA_FILE).
    const device = cliHome(server, { SVC_CONFIG_DIR: join(dir, 'unit device'), SVC_SYSTEMD_UNIT_DIR: unitDir, SVC_SYSTEMCTL: systemctl });
    const enabled = await svc(device, ['runtime', 'enable', '--owner', `user:${ALICE}`, '--device-id', 'life-unit', '--transport', 'tcp', '--poll-interval', '200ms']);
    expect(enabled.stderr).toBe('');
    expect(enabled.code).toBe(0);

    const unit = parseUnit(readFileSync(join(unitDir, 'svc-runtime.service'), 'utf8'));
    const environment = environmentOf(unit.get('Service.Environment') ?? []);
    const [program, ...args] = execStartArgv(unit.get('Service.ExecStart')![0], environment);
    // systemd starts it with its own small environment: PATH and the unit's Environment=.
    const child = spawn(program, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...environment }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const requestId = await waitUntil('the registration request', () => /request (req_[A-Za-z0-9_-]+)\)/.exec(output)?.[1], {
      timeoutMs: WAIT_MS,
      giveUp: () => (child.exitCode === null ? undefined : `the unit's command exited ${child.exitCode}:\n${output}`),
      describe: () => `output so far: ${output}`,
    });
    expect(await listed('life-unit')).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect((await svc(alice, ['devices', 'approve', requestId])).code).toBe(0);
    await online('life-unit');
    expect(child.exitCode).toBeNull();
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
