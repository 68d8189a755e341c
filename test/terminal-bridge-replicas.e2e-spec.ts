/**
 * The terminal bridge across replicas on NATS: a page served by replica A drives a device whose
 * tunnel replica B (a real server process) holds, and a ticket issued by one replica opens the
 * socket on the other exactly once (tickets in the NATS KV). Both replicas answer one origin, as
 * behind a load balancer (WEB_ORIGINS).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FrameType } from '@svc/common';
import type { Caller } from './fixtures/api-client';
import { eventually } from './fixtures/eventually';
import { NatsServerHandle, startNatsServer } from './fixtures/nats-server';
import { IdentityProviderHandle, startIdentityProvider } from './fixtures/oidc';
import { ReplicaPair, startReplicaPair } from './fixtures/replica-process';
import { RuntimeProcess, startRuntimeProcess } from './fixtures/runtime-process';
import { openTerminalSocket, refusedUpgrade, TerminalSocket } from './fixtures/terminal-socket';
import { registerDevice } from './fixtures/test-server';

const ALICE = 'alice@term-replicas.test';
const DEVICE = 'wtr-1';
const PAGE = 'https://svc.example.test';

describe('terminal bridge across replicas', () => {
  let nats: NatsServerHandle;
  let idp: IdentityProviderHandle;
  let replicas: ReplicaPair;
  let runtime: RuntimeProcess;
  let alice: Caller;
  let home: string;
  const open: TerminalSocket[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    idp = await startIdentityProvider();
    home = mkdtempSync(join(tmpdir(), 'svc-term-replicas-'));
    replicas = await startReplicaPair(idp, nats.url, { WEB_ORIGINS: PAGE });
    alice = await replicas.a.login(ALICE);
    const apiKey = await registerDevice(replicas.a, DEVICE, `user:${ALICE}`, alice);
    runtime = startRuntimeProcess(['run'], { HOME: home, SVC_CONFIG_DIR: join(home, 'svc'), SVC_SERVER_URL: replicas.b.url, SVC_CA_FILE: replicas.a.tunnel!.caFile, SVC_API_KEY: apiKey });
    await runtime.waitForLog('tunnel up');
    await eventually('A to see the device B holds', async () => (await replicas.a.api.get(`/devices/${DEVICE}/status`, alice)).body.status === 'online');
  });

  afterAll(async () => {
    for (const socket of open) socket.ws.terminate();
    runtime?.kill('SIGTERM');
    await runtime?.exited;
    await replicas?.close();
    await idp?.stop();
    await nats?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  async function ticket(on: 'a' | 'b', body: Record<string, unknown>): Promise<string> {
    const res = await replicas[on].api.call('POST', '/api/tickets', { ...alice, headers: { origin: PAGE } }, body);
    expect(res.status).toBe(201);
    expect(res.body.url).toMatch(/^wss:\/\/svc\.example\.test\/api\/ws\?ticket=/);
    return res.body.ticket;
  }

  async function connect(on: 'a' | 'b', ticketValue: string): Promise<TerminalSocket> {
    const socket = await openTerminalSocket(`${replicas[on].url.replace(/^http/, 'ws')}/api/ws?ticket=${ticketValue}`, { origin: PAGE, token: alice.token });
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
    const again = `${replicas.b.url.replace(/^http/, 'ws')}/api/ws?ticket=${value}`;
    await expect(refusedUpgrade(again, { origin: PAGE, token: alice.token })).resolves.toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' } });
  });
});
