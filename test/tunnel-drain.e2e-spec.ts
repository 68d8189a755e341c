/**
 * A tunnel the server replaces (the device connected again: a second connection, or `auto`
 * moving carriers) drains: the operations in flight on it finish with their whole answer, new
 * ones go to the new tunnel. The real `svc` binary, a real server and a real runtime process on
 * the suite's carrier (TCP, or QUIC under `npm run test:quic`); the second connection is a
 * protocol-v1 stub holding the same device key (tunnel-runtime-stub.ts).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './fixtures/eventually';
import { useFleet } from './fixtures/fleet';
import { TEST_CARRIER } from './fixtures/runtime-process';
import { svc } from './fixtures/svc-cli';
import { connectRuntimeStub, RuntimeStub } from './fixtures/tunnel-runtime-stub';

const ALICE = 'alice@tunnel-drain.test';

describe(`a replaced tunnel drains (runtime on ${TEST_CARRIER})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tunnel-drain-'));
  const fleet = useFleet({ users: { alice: ALICE }, devices: { 'dr-1': { owner: 'alice', runtime: true } } });
  const stubs: RuntimeStub[] = [];
  /** A second connection of the device's key: the server puts it in the runtime's tunnel's place. */
  const replaceTunnel = async () => {
    const { tunnel } = fleet.server;
    const stub = await connectRuntimeStub({ port: tunnel!.port, ca: tunnel!.caFile, apiKey: fleet.device('dr-1').apiKey });
    stubs.push(stub);
    expect(stub.hello.ok).toBe(true);
    return stub;
  };

  afterAll(() => {
    for (const stub of stubs) stub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an exec in flight on the replaced tunnel ends with its whole output and exit code 0', async () => {
    const started = join(dir, 'started');
    const replaced = join(dir, 'replaced');
    const runtime = fleet.device('dr-1').runtime!;
    const linesBefore = runtime.stderr.length;
    // The command prints, then waits until the test has replaced its tunnel, then prints again.
    const script = 'echo before; touch "$0"; while [ ! -e "$1" ]; do sleep 0.1; done; echo done';
    const exec = svc(fleet.user('alice').home, ['exec', 'dr-1', '--', 'sh', '-c', script, started, replaced]);
    await eventually('the command to run on the device', () => existsSync(started));

    await replaceTunnel();
    const goaway = await runtime.waitForLog('server closing the tunnel', linesBefore);
    expect(String(goaway.reason)).toContain('replaced by a new connection');
    writeFileSync(replaced, '');

    await expect(exec).resolves.toMatchObject({ code: 0, stdout: 'before\ndone\n', stderr: '' });
  });

  it('the runtime connects again, and the device answers through its new tunnel', async () => {
    // The runtime's reconnect replaces the stub's tunnel in turn.
    await stubs[0].closed;
    await eventually('an exec through the new tunnel', async () => {
      const result = await svc(fleet.user('alice').home, ['exec', 'dr-1', '--', 'echo', 'back']);
      return result.code === 0 && result.stdout === 'back\n';
    });
  });

  it('cuts an operation that outlives the drain time on the replaced tunnel, and the device stays reachable', async () => {
    const started = join(dir, 'long-started');
    const runtime = fleet.device('dr-1').runtime!;
    const linesBefore = runtime.stderr.length;
    const exec = svc(fleet.user('alice').home, ['exec', 'dr-1', '--', 'sh', '-c', 'touch "$0"; sleep 120', started]);
    await eventually('the command to run on the device', () => existsSync(started));
    const stub = await replaceTunnel();
    await runtime.waitForLog('server closing the tunnel', linesBefore);
    const result = await exec;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('the device or the server went away');
    await stub.closed;
    await eventually('an exec through the new tunnel', async () => {
      const again = await svc(fleet.user('alice').home, ['exec', 'dr-1', '--', 'echo', 'back']);
      return again.code === 0 && again.stdout === 'back\n';
    });
  });
});
