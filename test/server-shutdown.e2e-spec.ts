/**
 * Stopping the server (what SIGINT/SIGTERM run: Nest's shutdown hooks) closes every tunnel with a
 * reason, over both carriers: a real runtime process logs "server shutting down" at once (not a
 * keep-alive timeout 20-30 s later) and starts reconnecting.
 */
import { useFleet } from './fixtures/fleet';

describe.each(['tcp', 'quic'] as const)('server shutdown (%s carrier)', (carrier) => {
  const fleet = useFleet({ users: { alice: 'alice@shutdown.test' }, devices: { [`shut-${carrier}`]: { owner: 'alice', runtime: { args: ['--transport', carrier] } } } });

  it('tells the runtime why its tunnel closes, and the runtime reconnects', async () => {
    const runtime = fleet.device(`shut-${carrier}`).runtime!;
    const server = fleet.server;
    const before = runtime.stderr.length;

    await server.close();

    const notice = await runtime.waitForLog('server closing the tunnel', before);
    expect(notice.reason).toBe('server shutting down');
    const lost = await runtime.waitForLog('tunnel lost', before);
    expect(lost.reason).toBe('server closed the tunnel: server shutting down');
    await runtime.waitForLog('reconnecting', before);
  });
});
