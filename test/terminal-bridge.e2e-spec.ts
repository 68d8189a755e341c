/**
 * The browser's terminal end to end: POST /api/tickets (bearer token, Origin) → the WebSocket
 * bridge on REST_PORT (`/api/ws?ticket=…`, Node's `ws` client standing in for the browser) →
 * the same shell and exec streams the CLI uses → a real runtime process → a PTY or a command.
 * The socket carries its presenter's access token as a subprotocol (never in the URL); a ticket
 * opens only for the user it was issued to. /api/tickets and /api/ws are the bridge's own routes (no
 * catalog operation) and are asked for raw; audit logs and status are read by name.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BRIDGE_PROTOCOL, bridgeProtocols, FrameType } from '@svc/common';
import type { Caller } from './fixtures/api-client';
import { eventually } from './fixtures/eventually';
import { useFleet } from './fixtures/fleet';
import { openTerminalSocket, Presenter, refusedUpgrade, requestTicket, TerminalSocket } from './fixtures/terminal-socket';
import type { TestServer } from './fixtures/test-server';

const ALICE = 'alice@term.test';
const SIZE = { cols: 100, rows: 30 };
const ELSEWHERE = 'https://evil.example';

describe('terminal bridge: tickets and the WebSocket (real runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-terminal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const fleet = useFleet({
    users: { alice: ALICE, bob: 'bob@term.test', carol: 'carol@term.test', dave: 'dave@term.test' },
    devices: { 'wt-1': { owner: 'alice', shares: { bob: 'viewer' }, runtime: true }, 'wt-off': { owner: 'alice' } },
  });
  let server: TestServer;
  let alice: Caller;
  const open: TerminalSocket[] = [];

  beforeAll(() => {
    server = fleet.server;
    alice = fleet.user('alice').caller;
  });
  afterEach(() => {
    for (const socket of open.splice(0)) socket.ws.terminate();
  });

  async function ticketFor(caller: Caller, body: Record<string, unknown>): Promise<string> {
    const res = await requestTicket(server, caller, body);
    expect(res.status).toBe(201);
    return res.body.url;
  }

  /** Alice's page by default: her origin, her token. */
  const asAlice = (changes: Partial<Presenter> = {}): Presenter => ({ origin: server.url, token: alice.token, ...changes });

  async function connect(url: string, presenter: Presenter = asAlice()): Promise<TerminalSocket> {
    const socket = await openTerminalSocket(url, presenter);
    open.push(socket);
    return socket;
  }

  const shell = async () => connect(await ticketFor(alice, { device: 'wt-1', operation: 'device_shell', ...SIZE }));
  const type = (term: TerminalSocket, line: string) => term.send(FrameType.STDIN, `${line}\n`);

  describe('shell', () => {
    it('answers a ticket bound to the page origin, single use, 30 s', async () => {
      const res = await requestTicket(server, alice, { device: 'wt-1', operation: 'device_shell' });
      expect(res.status).toBe(201);
      expect(res.body.ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(res.body.url).toBe(`${server.url.replace(/^http/, 'ws')}/api/ws?ticket=${res.body.ticket}`);
      expect(Date.parse(res.body.expires_at) - server.clock.now().getTime()).toBeLessThanOrEqual(30_000);
    });

    it('runs what is typed, follows a resize, interrupts with SIGINT and delivers the exit code', async () => {
      const term = await shell();
      type(term, 'echo h""i');
      await term.waitFor(/echo h""i\r\n[^]*?\bhi\r\n/);
      type(term, `stty size | sed 's/^/SIZE:/'`);
      expect((await term.waitFor(/SIZE:(\d+) (\d+)/)).slice(1)).toEqual(['30', '100']);
      let mark = term.text().length;
      term.send(FrameType.RESIZE, { cols: 120, rows: 40 });
      type(term, `stty size | sed 's/^/SIZE:/'`);
      expect((await term.waitFor(/SIZE:(\d+) (\d+)/, mark)).slice(1)).toEqual(['40', '120']);

      type(term, `sh -c 'echo SLE""EPING; exec sleep 100'`);
      await term.waitFor(/SLEEPING/);
      mark = term.text().length;
      term.send(FrameType.SIGNAL, { signal: 'SIGINT' });
      type(term, 'echo "RC:$?"');
      await term.waitFor(/RC:130/, mark);

      type(term, 'exit 3');
      await expect(term.exit).resolves.toMatchObject({ exit_code: 3 });
      await expect(term.closed).resolves.toEqual({ code: 1000, reason: 'exited' });
    });

    it('runs a command with the environment the page asked for, as the shell stream route does', async () => {
      const term = await connect(await ticketFor(alice, { device: 'wt-1', operation: 'device_shell', command: ['/bin/sh', '-c', 'echo "V=$FROM_PAGE"'], env: { FROM_PAGE: 'page-value' } }));
      await term.waitFor(/V=page-value/);
      await expect(term.exit).resolves.toMatchObject({ exit_code: 0 });
    });

    it('is audited as a shell, by the ticket holder, from the browser', async () => {
      const term = await shell();
      type(term, 'exit');
      await term.exit;
      const logs = await fleet.user('alice').route('device_audit_logs.one', { device: 'wt-1', max: 1000 });
      expect(logs.logs).toContainEqual(expect.objectContaining({ user: ALICE, action: 'device.shell_opened', details: 'shell: login shell (via browser)' }));
    });

    it('hangs the shell up when the browser goes away', async () => {
      const term = await shell();
      type(term, `echo "SHELL:$$:"`);
      const pid = Number((await term.waitFor(/SHELL:(\d+):/))[1]);
      term.ws.terminate();
      await eventually(`shell ${pid} gone`, () => !existsSync(`/proc/${pid}`));
    });
  });

  describe('exec', () => {
    it('streams stdout and stderr and delivers the exit code', async () => {
      const url = await ticketFor(alice, { device: 'wt-1', operation: 'device_exec', command: ['sh', '-c', 'echo out; echo err >&2; exit 7'] });
      const run = await connect(url);
      await expect(run.exit).resolves.toEqual({ exit_code: 7, signal: null, timed_out: false });
      expect(run.text(FrameType.STDOUT)).toBe('out\n');
      expect(run.text(FrameType.STDERR)).toBe('err\n');
      await expect(run.closed).resolves.toEqual({ code: 1000, reason: 'exited' });
      const logs = await fleet.user('alice').route('device_audit_logs.one', { device: 'wt-1', max: 1000 });
      expect(logs.logs).toContainEqual(expect.objectContaining({ user: ALICE, action: 'device.exec', details: "exec: sh -c echo out; echo err >&2; exit 7 (via browser)" }));
    });

    it('carries stdin to its end and a Ctrl-C to the command', async () => {
      const cat = await connect(await ticketFor(alice, { device: 'wt-1', operation: 'device_exec', command: ['cat'], stdin: true }));
      cat.send(FrameType.STDIN, 'typed ');
      cat.send(FrameType.STDIN, 'in the page');
      cat.send(FrameType.STDIN_EOF);
      await expect(cat.exit).resolves.toMatchObject({ exit_code: 0 });
      expect(cat.text()).toBe('typed in the page');
      const sleeper = await connect(await ticketFor(alice, { device: 'wt-1', operation: 'device_exec', command: ['sh', '-c', 'echo STARTED; exec sleep 100'] }));
      await sleeper.waitFor(/STARTED/);
      sleeper.send(FrameType.SIGNAL, { signal: 'SIGINT' });
      await expect(sleeper.exit).resolves.toMatchObject({ signal: 'SIGINT', timed_out: false });
      await expect(sleeper.closed).resolves.toEqual({ code: 1000, reason: 'exited' });
    });

    it('holds a slow reader\'s device back instead of buffering (the socket queue stays bounded)', async () => {
      const chunks = 2048; // 2048 × 64 KiB = 128 MiB
      const script = `i=0; while [ $i -lt ${chunks} ]; do head -c 65536 /dev/zero; i=$((i+1)); echo $i > '${join(dir, 'progress')}'; done`;
      const url = await ticketFor(alice, { device: 'wt-1', operation: 'device_exec', command: ['sh', '-c', script], timeout_secs: 600 });
      const run = await connect(url);
      let received = 0;
      run.ws.on('message', (data: Buffer) => (received += data.length));
      run.ws.pause();
      const progress = () => (existsSync(join(dir, 'progress')) ? Number(readFileSync(join(dir, 'progress'), 'utf8').trim() || 0) : 0);
      // Stalled: the same count on 10 polls in a row, well below the end.
      let last = -1;
      let same = 0;
      await eventually('the device to stall', () => {
        const now = progress();
        same = now === last ? same + 1 : 0;
        last = now;
        return same >= 10;
      }, { intervalMs: 300 });
      expect(last).toBeLessThan(chunks / 2);
      run.ws.resume();
      await expect(run.exit).resolves.toMatchObject({ exit_code: 0 });
      await run.closed;
      // Every STDOUT byte arrived (frame headers of 5 bytes and the EXIT frame on top).
      const stdout = run.frames.filter((f) => f.type === FrameType.STDOUT).reduce((n, f) => n + f.payload.length, 0);
      expect(stdout).toBe(chunks * 65536);
      expect(received).toBeGreaterThan(stdout);
    }, 120_000);
  });

  describe('refusals', () => {
    const shellTicket = () => ticketFor(alice, { device: 'wt-1', operation: 'device_shell' });

    it('upgrades nothing without a ticket, or with an unknown one (401)', async () => {
      const base = `${server.url.replace(/^http/, 'ws')}/api/ws`;
      await expect(refusedUpgrade(base, asAlice())).resolves.toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' } });
      await expect(refusedUpgrade(`${base}?ticket=${'A'.repeat(43)}`, asAlice())).resolves.toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' } });
      await expect(refusedUpgrade(`${server.url.replace(/^http/, 'ws')}/api/other`, asAlice())).resolves.toMatchObject({ status: 404 });
    });

    it('leaves other upgrade requests (curl\'s h2c) to the REST API', async () => {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${server.url}/health`, { headers: { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAARAAAAAAAIAAAAA' } }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ status: expect.any(String) });
    });

    it('refuses a ticket used before (single use)', async () => {
      const url = await shellTicket();
      await connect(url);
      await expect(refusedUpgrade(url, asAlice())).resolves.toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED', message: expect.stringMatching(/already used or expired/) } });
    });

    it('refuses an expired ticket', async () => {
      const url = await shellTicket();
      server.clock.advance(30_001);
      await expect(refusedUpgrade(url, asAlice())).resolves.toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' } });
    });

    it('makes a leaked ticket useless from another origin (403) and spends it there', async () => {
      const url = await shellTicket();
      await expect(refusedUpgrade(url, asAlice({ origin: ELSEWHERE }))).resolves.toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
      // Presented once, from the wrong page: the rightful page cannot use it either.
      await expect(refusedUpgrade(url, asAlice())).resolves.toMatchObject({ status: 401 });
      const other = await shellTicket();
      await expect(refusedUpgrade(other, asAlice({ origin: null }))).resolves.toMatchObject({ status: 403, body: { code: 'FORBIDDEN', message: expect.stringMatching(/no Origin/) } });
    });

    it('refuses another user\'s ticket (403) and spends it: the leaked ticket dies there', async () => {
      const url = await shellTicket();
      const bob = fleet.user('bob').caller;
      await expect(refusedUpgrade(url, asAlice({ token: bob.token }))).resolves.toMatchObject({ status: 403, body: { code: 'FORBIDDEN', message: expect.stringMatching(/issued to another user/) } });
      await expect(refusedUpgrade(url, asAlice())).resolves.toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED', message: expect.stringMatching(/already used/) } });
      // Alice's page asks for a new one, as its Reconnect does.
      const term = await connect(await shellTicket());
      type(term, 'exit 0');
      await expect(term.exit).resolves.toMatchObject({ exit_code: 0 });
    });

    it('refuses a socket without a valid access token (401) and leaves the ticket unspent', async () => {
      const url = await shellTicket();
      await expect(refusedUpgrade(url, asAlice({ token: null }))).resolves.toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED', message: expect.stringMatching(/svc\.bearer\./) } });
      await expect(refusedUpgrade(url, asAlice({ token: 'not-a-token' }))).resolves.toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED', message: 'Invalid access token' } });
      await expect(refusedUpgrade(url, asAlice({ protocols: ['svc.v1', 'svc.bearer.***'] }))).resolves.toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
      const bearer = bridgeProtocols(alice.token!)[1];
      await expect(refusedUpgrade(url, asAlice({ protocols: [bearer] }))).resolves.toMatchObject({ status: 400, body: { code: 'INVALID_INPUT', message: expect.stringMatching(/svc\.v1/) } });
      // None of these looked the ticket up: its owner opens it, and the server speaks svc.v1, never echoing the token.
      const term = await connect(url);
      expect(term.ws.protocol).toBe(BRIDGE_PROTOCOL);
      type(term, 'exit 0');
      await expect(term.exit).resolves.toMatchObject({ exit_code: 0 });
    });

    it('gives no ticket without a bearer token or an allowed Origin', async () => {
      const body = { device: 'wt-1', operation: 'device_shell' };
      expect((await requestTicket(server, {}, body)).status).toBe(401);
      await expect(requestTicket(server, alice, body, null)).resolves.toMatchObject({ status: 403, body: { code: 'FORBIDDEN', message: expect.stringMatching(/no Origin/) } });
      await expect(requestTicket(server, alice, body, ELSEWHERE)).resolves.toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    });

    it('follows AccessPolicy: a viewer gets 403, a stranger 404, an offline device 503', async () => {
      const bob = fleet.user('bob').caller;
      for (const operation of ['device_shell', 'device_exec']) {
        const command = operation === 'device_exec' ? { command: ['id'] } : {};
        await expect(requestTicket(server, bob, { device: 'wt-1', operation, ...command })).resolves.toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
        await expect(requestTicket(server, fleet.user('carol').caller, { device: 'wt-1', operation, ...command })).resolves.toMatchObject({ status: 404, body: { code: 'DEVICE_NOT_FOUND' } });
      }
      await expect(requestTicket(server, alice, { device: 'wt-off', operation: 'device_shell' })).resolves.toMatchObject({ status: 503, body: { code: 'DEVICE_OFFLINE' } });
    });

    it('checks the stream arguments with the runtime\'s rules (400)', async () => {
      const bad = [
        { device: 'wt-1', operation: 'device_shell', cols: 0 },
        { device: 'wt-1', operation: 'device_shell', timeout_secs: 5 },
        { device: 'wt-1', operation: 'device_exec' },
        { device: 'wt-1', operation: 'device_exec', command: ['id'], rows: 10 },
        { device: 'wt-1', operation: 'device_docker' },
        { device: 'wt-1', operation: 'device_shell', token: 'x' },
      ];
      for (const body of bad) await expect(requestTicket(server, alice, body)).resolves.toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    });

    it('decides again when the socket opens: access removed meanwhile closes it with the refusal', async () => {
      const dave = fleet.user('dave');
      await fleet.user('alice').run('device_access_add', { device: 'wt-1', email_or_org_id: dave.email, role: 'editor' });
      const url = await ticketFor(dave.caller, { device: 'wt-1', operation: 'device_shell' });
      await fleet.user('alice').run('device_access_remove', { device: 'wt-1', email_or_org_id: dave.email });
      const term = await connect(url, asAlice({ token: dave.caller.token }));
      await expect(term.closed).resolves.toEqual({ code: 4404, reason: 'DEVICE_NOT_FOUND' });
      const error = term.frames.find((f) => f.type === FrameType.ERROR);
      expect(JSON.parse(error!.payload.toString('utf8'))).toMatchObject({ code: 'DEVICE_NOT_FOUND' });
    });

    it('tells the browser clearly when the device went offline after the ticket (ERROR frame, 4503)', async () => {
      const device = await fleet.addDevice('wt-2', { owner: 'alice', runtime: true });
      const url = await ticketFor(alice, { device: 'wt-2', operation: 'device_shell' });
      device.runtime!.kill('SIGTERM');
      await device.runtime!.exited;
      await eventually('wt-2 offline', async () => (await fleet.user('alice').route('device_status.one', { device: 'wt-2' })).status === 'offline');
      const term = await connect(url);
      await expect(term.closed).resolves.toEqual({ code: 4503, reason: 'DEVICE_OFFLINE' });
      expect(JSON.parse(term.frames.find((f) => f.type === FrameType.ERROR)!.payload.toString('utf8'))).toEqual({ code: 'DEVICE_OFFLINE', message: expect.any(String) });
    });

    it('closes with 1008 on a message that is not whole client frames, and 1003 on text', async () => {
      const term = await shell();
      term.ws.send(Buffer.from([FrameType.STDOUT, 0, 0, 0, 1, 0x41]));
      await expect(term.closed).resolves.toMatchObject({ code: 1008 });
      const other = await shell();
      other.ws.send('echo hi');
      await expect(other.closed).resolves.toMatchObject({ code: 1003 });
    });
  });
});
