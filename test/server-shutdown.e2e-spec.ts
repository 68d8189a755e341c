/**
 * Stopping the server (what SIGINT/SIGTERM run: Nest's shutdown hooks) closes every tunnel with a
 * reason, over both carriers: a real runtime process logs "server shutting down" at once (not a
 * keep-alive timeout 20-30 s later) and starts reconnecting. And it closes its REST connections
 * once they carry no request, so nothing a client holds open keeps the process from stopping.
 */
import { connect, Socket } from 'node:net';
import { Agent, request } from 'node:http';
import { openEventStream } from './fixtures/event-stream';
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

describe('server shutdown: REST connections', () => {
  const fleet = useFleet({ users: { alice: 'alice@shutdown-rest.test' } });

  const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

  it('closes a connection that never sent a request, an idle keep-alive one, and one whose answer ends on the stop', async () => {
    const server = fleet.server;
    const { port } = new URL(server.url);
    // A client's spare connection (fetch opens them), or anyone's: connected, nothing sent.
    const silent = connect(Number(port), '127.0.0.1');
    silent.on('error', () => undefined);
    await new Promise((resolve) => silent.once('connect', resolve));
    // A keep-alive connection whose request was answered.
    const agent = new Agent({ keepAlive: true });
    const kept = await new Promise<Socket>((resolve, reject) => {
      const req = request(`${server.url}/health`, { agent }, (res) => {
        res.resume();
        res.once('end', () => resolve(req.socket!));
      });
      req.once('error', reject).end();
    });
    // An answer in flight: the event stream, which the stop itself ends.
    const events = await openEventStream(server.url, fleet.user('alice').caller);

    // Before, the silent connection held the stop until its client left (Node stops the headers
    // timeout checks at close()): this waited out the test's timeout.
    await server.close();

    await Promise.all([closed(silent), closed(kept), events.ended]);
    agent.destroy();
  });
});
