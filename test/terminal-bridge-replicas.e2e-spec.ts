/**
 * The terminal bridge across replicas on NATS: a page served by replica A drives a device whose
 * tunnel replica B (a real server process) holds, and a ticket issued by one replica opens the
 * socket on the other exactly once (tickets in the NATS KV). Both replicas answer one origin, as
 * behind a load balancer (WEB_ORIGINS). POST /api/tickets and /api/ws are no catalog operations:
 * the bridge's own HTTP and WebSocket routes, asked for raw.
 */
import { FrameType } from '@svc/common';
import { eventually } from './fixtures/eventually';
import { ReplicaName, useReplicaFleet } from './fixtures/replica-fleet';
import { openTerminalSocket, refusedUpgrade, TerminalSocket } from './fixtures/terminal-socket';

const ALICE = 'alice@term-replicas.test';
const DEVICE = 'wtr-1';
const PAGE = 'https://svc.example.test';

describe('terminal bridge across replicas', () => {
  const fleet = useReplicaFleet({ env: { WEB_ORIGINS: PAGE }, users: { alice: ALICE }, devices: { [DEVICE]: { owner: 'alice', runtime: { on: 'b' } } } });
  const open: TerminalSocket[] = [];
  const alice = () => fleet.user('alice').caller;

  beforeAll(async () => {
    await eventually('A to see the device B holds', async () => (await fleet.user('alice').on('a').route('device_status.one', { device: DEVICE })).status === 'online');
    // Before the fleet's teardown: an open socket would hold its replica's close.
    fleet.cleanup(() => open.forEach((socket) => socket.ws.terminate()));
  });

  async function ticket(on: ReplicaName, body: Record<string, unknown>): Promise<string> {
    const res = await (on === 'a' ? fleet.a.api : fleet.b.api).call('POST', '/api/tickets', { ...alice(), headers: { origin: PAGE } }, body);
    expect(res.status).toBe(201);
    expect(res.body.url).toMatch(/^wss:\/\/svc\.example\.test\/api\/ws\?ticket=/);
    return res.body.ticket;
  }

  async function connect(on: ReplicaName, ticketValue: string): Promise<TerminalSocket> {
    const socket = await openTerminalSocket(`${fleet.url(on).replace(/^http/, 'ws')}/api/ws?ticket=${ticketValue}`, { origin: PAGE, token: alice().token });
    open.push(socket);
    return socket;
  }

  it('drives a shell on a device held by B from a page on A', async () => {
    const term = await connect('a', await ticket('a', { device: DEVICE, operation: 'device_shell' }));
    term.send(FrameType.STDIN, 'echo h""i; exit 4\n');
    await term.waitFor(/\bhi\r\n/);
    await expect(term.exit).resolves.toMatchObject({ exit_code: 4 });
    await expect(term.closed).resolves.toEqual({ code: 1000, reason: 'exited' });
  });

  it('opens a ticket issued by B on A, once', async () => {
    const value = await ticket('b', { device: DEVICE, operation: 'device_exec', command: ['echo', 'through the bus'] });
    const run = await connect('a', value);
    await expect(run.exit).resolves.toMatchObject({ exit_code: 0 });
    expect(run.text()).toBe('through the bus\n');
    await expect(run.closed).resolves.toEqual({ code: 1000, reason: 'exited' });
    const again = `${fleet.b.url.replace(/^http/, 'ws')}/api/ws?ticket=${value}`;
    await expect(refusedUpgrade(again, { origin: PAGE, token: alice().token })).resolves.toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' } });
  });
});
