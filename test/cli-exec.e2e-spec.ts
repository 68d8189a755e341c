/**
 * `svc exec`, `svc docker` and `svc ssh-config` end to end: the real binary against the real
 * server and identity provider, a real runtime process as the device with podman as its container
 * engine, and a real `ssh` whose ProxyCommand (the one svc generated) reaches a real sshd on the
 * device's loopback.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PodmanService, startPodmanService } from './fixtures/container-engine';
import { useFleet } from './fixtures/fleet';
import { Sshd, startSshd } from './fixtures/sshd';
import { CliHome, svc, SVC_BIN } from './fixtures/svc-cli';

const ALICE = 'alice@cli-exec.test';
const MALLORY = 'mallory@cli-exec.test';

describe('svc exec, docker and ssh-config (real binary, real runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-exec-'));
  const fleet = useFleet({ relay: true, users: { alice: ALICE, mallory: MALLORY }, devices: { 'ex-off': { owner: 'alice' } } });
  let engine: PodmanService;
  let sshd: Sshd;
  let alice: CliHome;
  let mallory: CliHome;

  beforeAll(async () => {
    engine = await startPodmanService(dir);
    sshd = await startSshd(dir);
    // Its runtime uses the engine started above.
    await fleet.addDevice('ex-1', { owner: 'alice', runtime: { args: ['--docker-socket', engine.socket] } });
    alice = fleet.user('alice').home;
    mallory = fleet.user('mallory').home;
  });
  // Declared after the fleet, so that it runs after it: the runtime stops before its engine.
  afterAll(async () => {
    await engine?.stop();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('svc exec', () => {
    it('prints the raw output of one device, stderr on stderr, and exits with the remote exit code', async () => {
      const result = await svc(alice, ['exec', 'ex-1', '--', 'sh', '-c', 'printf "one\\033[31m\\n"; echo two >&2; exit 7']);
      expect(result.code).toBe(7);
      expect(result.stdout).toBe('one\x1b[31m\n'); // raw: what the user asked to see
      expect(result.stderr).toBe('two\n');
    });

    it('passes words that look like svc flags after -- to the device', async () => {
      const result = await svc(alice, ['exec', 'ex-1', '--', 'echo', '--json', '--devices', 'x']);
      expect(result).toMatchObject({ code: 0, stdout: '--json --devices x\n' });
    });

    it('prints the typed result under --json and still exits with the remote code', async () => {
      const result = await svc(alice, ['exec', 'ex-1', '--json', '--', 'sh', '-c', 'echo hi; exit 3']);
      expect(result.code).toBe(3);
      expect(JSON.parse(result.stdout)).toEqual({ output: 'hi\n', exit_code: 3, timed_out: false });
    });

    it('kills a command that outlives --timeout and says so', async () => {
      const result = await svc(alice, ['exec', 'ex-1', '--timeout', '1', '--json', '--', 'sleep', '30']);
      const answer = JSON.parse(result.stdout) as { exit_code: number; timed_out: boolean };
      expect(answer.timed_out).toBe(true);
      expect(result.code).toBe(answer.exit_code);
      expect(answer.exit_code).not.toBe(0);
    });

    it('prefixes every line per device in a batch, reports device errors on stderr and exits with the worst code', async () => {
      const result = await svc(alice, ['exec', '--devices', 'ex-1,ex-off', '--', 'sh', '-c', 'echo a; echo c >&2; printf b; exit 3']);
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('ex-1: a\nex-1: b\n');
      expect(result.stderr).toMatch(/^ex-off: error: .*offline/im);
      expect(result.stderr).toMatch(/^ex-1: c$/m);
      expect(result.stderr).toContain('ex-1: exit code 3');
    });

    it('counts a device that could not run the command as 2', async () => {
      const result = await svc(alice, ['exec', '--devices', 'ex-1,ex-off', '--json', '--', 'true']);
      expect(result.code).toBe(2);
      const answer = JSON.parse(result.stdout) as { results: Array<Record<string, unknown>> };
      expect(answer.results).toEqual([
        { device: 'ex-1', output: '', exit_code: 0, timed_out: false },
        { device: 'ex-off', error: expect.any(String), code: 'DEVICE_OFFLINE' },
      ]);
    });

    it('treats a device the caller cannot access as not found: one line, exit 2', async () => {
      const result = await svc(mallory, ['exec', 'ex-1', '--', 'id']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/^Error: .*not found/i);
    });

    it('refuses a command given without "--" before asking the server', async () => {
      const result = await svc(alice, ['exec', 'ex-1', 'uname']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/after "--"/);
    });

    it('documents itself with examples', async () => {
      const result = await svc(alice, ['exec', '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('EXAMPLES');
      expect(result.stdout).toContain('svc exec --devices edge-1,edge-2,edge-3 -- systemctl is-active nginx');
    });
  });

  describe('svc docker', () => {
    it("runs the docker CLI against the device's engine and exits with its code", async () => {
      const version = await svc(alice, ['docker', 'ex-1', '--', 'version']);
      expect(version.code).toBe(0);
      expect(version.stdout).toContain('Podman Engine');
      const missing = await svc(alice, ['docker', 'ex-1', '--', 'inspect', 'no-such-object']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/no such object/i);
    });

    it('prints {stdout, stderr, exit_code, timed_out} under --json', async () => {
      const result = await svc(alice, ['docker', 'ex-1', '--json', '--', 'images', '--format', '{{json .}}']);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ stdout: '', stderr: '', exit_code: 0, timed_out: false });
    });

    it('fails with one line and exit 2 for an offline device', async () => {
      const result = await svc(alice, ['docker', 'ex-off', '--', 'ps']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^Error: .*offline/i);
    });
  });

  describe('svc ssh-config', () => {
    function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
      return new Promise((resolve, reject) => {
        const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, stdout, stderr }));
      });
    }

    it('prints a Host block whose ProxyCommand runs this svc', async () => {
      const answer = JSON.parse((await svc(alice, ['ssh-config', 'ex-1', '--user', 'pi', '--host-alias', 'edge', '--json'])).stdout) as Record<string, unknown>;
      expect(answer).toMatchObject({ host: 'edge', device: 'ex-1', user: 'pi', port: 22 });
      expect(answer.proxy_command).toBe(`'${process.execPath}' '${SVC_BIN}' forward --stdio ex-1 22`);
      expect(answer.config).toBe(`Host edge\n  HostName ex-1\n  User pi\n  ProxyCommand ${answer.proxy_command as string}\n`);
    });

    it('refuses names that would break the config file', async () => {
      const result = await svc(alice, ['ssh-config', 'ex-1', '--host-alias', 'a b\nHost *']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
    });

    it('lets plain ssh and scp reach the sshd on the device through the generated config', async () => {
      const printed = await svc(alice, ['ssh-config', 'ex-1', '--user', sshd.user, '--host-alias', 'edge', '--port', String(sshd.port)]);
      expect(printed.code).toBe(0);
      const config = join(alice.dir, 'ssh_config');
      writeFileSync(config, printed.stdout);
      // "edge" resolves nowhere: only the ProxyCommand (svc) can reach the device.
      const ssh = await run('ssh', ['-F', config, ...sshd.clientOptions, 'edge', 'echo', 'ok', '$((6*7))'], alice.env);
      expect(ssh).toMatchObject({ code: 0, stdout: 'ok 42\n' });
      const file = join(alice.dir, 'payload.txt');
      writeFileSync(file, 'copied over svc\n');
      const copy = join(dir, 'copied.txt');
      // -O: the classic scp protocol; the fixture's sshd has no sftp subsystem.
      const scp = await run('scp', ['-O', '-F', config, ...sshd.clientOptions, file, `edge:${copy}`], alice.env);
      expect(scp).toMatchObject({ code: 0, stderr: '' });
      const check = await run('ssh', ['-F', config, ...sshd.clientOptions, 'edge', 'cat', copy], alice.env);
      expect(check.stdout).toBe('copied over svc\n');
    });
  });
});
