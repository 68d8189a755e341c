/**
 * "Server restarted → runtimes reconnect by themselves": a real runtime process against a server
 * that is closed and started again on the same ports and the same data directory (as after an
 * upgrade or a crash). The same runtime process — not a restarted one — is online on the new
 * server and runs commands there. Over both carriers. (At fleet size, `npm run bench` measures
 * 1,000 runtimes coming back.)
 */
import { useFleet } from './fixtures/fleet';
import { eventually } from './fixtures/eventually';

const WAIT_MS = 45_000;

describe.each(['tcp', 'quic'] as const)('runtime across a server restart (%s carrier)', (carrier) => {
  const deviceId = `rt-restart-${carrier}`;
  const fleet = useFleet({ users: { alice: 'alice@restart.test' }, devices: { [deviceId]: { owner: 'alice', runtime: true } }, carrier, restartable: true });

  async function status(wanted: string): Promise<unknown> {
    const statusNow = async () => ((await fleet.user('alice').run('device_status', { device: deviceId })) as { status?: string }).status;
    // Past the deadline the test's own expectation reports the status seen then.
    await eventually(`${deviceId} ${wanted}`, async () => (await statusNow()) === wanted, { timeoutMs: WAIT_MS }).catch(() => undefined);
    return statusNow();
  }

  it('reconnects by itself, in the same process, and runs commands on the new server', async () => {
    const runtime = fleet.device(deviceId).runtime!;
    expect(await status('online')).toBe('online');

    await fleet.stopServer();
    await runtime.waitForLog('tunnel lost');

    // Same ports, same data (devices, keys, the staging certificate): a restarted server.
    await fleet.startServer();
    expect(await status('online')).toBe('online');
    const exec = await fleet.user('alice').run('device_exec', { device: deviceId, command: ['echo', 'back'] });
    expect(exec).toMatchObject({ output: 'back\n', exit_code: 0 });
    expect(runtime.child.exitCode).toBeNull(); // the first process, never restarted
  });
});
