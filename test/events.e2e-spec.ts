/**
 * GET /events end to end: a real server, identity provider and runtime processes, read as a
 * script reads Server-Sent Events. Who sees what is AccessPolicy's answer at send time; a stream
 * resumes with Last-Event-ID inside the window, gets a reset outside it, and a client that does
 * not read is dropped while the server holds no more than a bounded buffer for it. /events and the
 * runtime's /auth/device are no catalog operations (asked for raw); the rest is called by name.
 */
import { Socket, connect } from 'node:net';
import { EventStreams } from '../apps/server/src/events/event-streams.service';
import { TunnelRegistry } from '../apps/server/src/relay/tunnel-registry.service';
import { eventually } from './fixtures/eventually';
import { openEventStream, EventStreamReader } from './fixtures/event-stream';
import { defaultJob } from './fixtures/deploy-specs';
import { useFleet } from './fixtures/fleet';
import { generateDeviceIdentity } from '@svc/common';
import { requestRegistration, submitRegistration } from './fixtures/test-server';

const ALICE = 'alice@events.test';
const BOB = 'bob@events.test';
const CAROL = 'carol@events.test';
const WINDOW = 40;
const WINDOW_SECS = 600;
const MAX_STREAMS = 4;

describe('GET /events (Server-Sent Events)', () => {
  const fleet = useFleet({
    relay: true,
    env: {
      EVENTS_WINDOW: String(WINDOW),
      EVENTS_WINDOW_SECS: String(WINDOW_SECS),
      EVENTS_MAX_STREAMS_PER_USER: String(MAX_STREAMS),
      MAX_PENDING_REGISTRATIONS: '100000',
      MAX_PENDING_REGISTRATIONS_PER_SOURCE: '100000',
    },
    users: { alice: ALICE, bob: BOB, carol: CAROL },
    orgs: { evorg: { owner: 'alice', members: { bob: 'viewer' } } },
    devices: { 'ev-quiet': { owner: 'alice' }, 'ev-bob': { owner: 'bob' }, 'ev-org-dev': { owner: 'org:evorg' } },
  });
  const streams: EventStreamReader[] = [];
  const open = async (who: string, lastEventId?: string) => {
    const stream = await openEventStream(fleet.server.url, fleet.user(who).caller, { lastEventId });
    streams.push(stream);
    return stream;
  };
  const api = () => fleet.server.api;
  const owner = () => fleet.user('alice');
  const share = (device: string, email: string) => owner().run('device_access_add', { device, email_or_org_id: email, role: 'viewer' });
  const unshare = (device: string, email: string) => owner().run('device_access_remove', { device, email_or_org_id: email });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  it('opens with retry: 3000 and the id to resume from, as text/event-stream', async () => {
    const stream = await open('alice');
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    await eventually('the opening lines', () => stream.lastId !== undefined);
    expect(stream.raw()).toMatch(/^retry: 3000\nid: [0-9a-f]+-\d+\n\n/);
  });

  it('refuses a token in the URL and a caller without a token', async () => {
    const { token } = fleet.user('alice').caller;
    const inUrl = await openEventStream(fleet.server.url, {}, { path: `/events?access_token=${token}` });
    expect(inUrl.status).toBe(401);
    const both = await openEventStream(fleet.server.url, fleet.user('alice').caller, { path: `/events?access_token=${token}` });
    await both.ended;
    expect(both.status).toBe(400);
    expect(JSON.parse(both.raw())).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('never in the URL'), requestId: expect.any(String) });
    const admin = await api().get('/events', fleet.server.admin);
    expect(admin.status).toBe(403);
  });

  it("tells device.online and, within 2 s of its runtime stopping, device.offline to the device's viewers only", async () => {
    const alice = await open('alice');
    const bob = await open('bob');
    await fleet.addDevice('ev-live', { owner: 'alice', runtime: true });
    const online = await alice.next('device.online', (e) => e.data.device_id === 'ev-live');
    expect(online.data).toMatchObject({ type: 'device.online', device: 'ev-live', at: expect.any(String) });
    const stoppedAt = Date.now();
    fleet.device('ev-live').runtime!.kill('SIGTERM');
    const offline = await alice.next('device.offline', (e) => e.data.device_id === 'ev-live');
    expect(offline.receivedAt - stoppedAt).toBeLessThan(2_000);
    // Bob's own marker arrives after the device's events were sent: none of them reached him.
    await requestRegistration(fleet.server, 'ev-bob-marker-1', `user:${BOB}`);
    await bob.next('registration.pending', (e) => e.data.device_id === 'ev-bob-marker-1');
    expect(bob.events.filter((e) => e.data.device_id === 'ev-live')).toEqual([]);
  });

  it('tells device.online once for a runtime whose carrier auto settles on TCP (the replacing tunnel is no second one)', async () => {
    const alice = await open('alice');
    // Loopback is near at a 1 s threshold: auto comes up on QUIC, then the server gets the TCP tunnel that replaces it.
    const { runtime } = await fleet.addDevice('ev-auto', { owner: 'alice', runtime: { args: ['--transport', 'auto', '--quic-near-rtt', '1s'] } });
    await runtime!.waitForLog('server is near: tunnel on TCP');
    await eventually('the TCP tunnel held', () => fleet.server.app.get(TunnelRegistry).sessionOf('ev-auto')?.carrier === 'tcp');
    // A marker told after the switch: whatever the switch told arrived before it.
    await requestRegistration(fleet.server, 'ev-auto-marker', `user:${ALICE}`);
    await alice.next('registration.pending', (e) => e.data.device_id === 'ev-auto-marker');
    expect(alice.events.filter((e) => e.event === 'device.online' && e.data.device_id === 'ev-auto')).toHaveLength(1);
    expect(alice.events.filter((e) => e.event === 'device.offline' && e.data.device_id === 'ev-auto')).toEqual([]);
    // The runtime's side of the switch is information, not an alarm: the replaced tunnel's close is a debug line.
    const logged = runtime!.stderr.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: string; msg: string; reason?: string });
    expect(logged.filter((line) => line.level !== 'debug' && line.level !== 'trace' && /replaced/.test(`${line.msg} ${line.reason ?? ''}`))).toEqual([]);
    expect(logged.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
    expect(logged.find((line) => line.msg === 'server is near: tunnel on TCP')).toMatchObject({ level: 'info', from: 'quic', to: 'tcp' });
  });

  it("tells deployment.status when a device's deployment changes state", async () => {
    const alice = await open('alice');
    await fleet.addDevice('ev-dep', { owner: 'alice', runtime: true });
    const job = defaultJob({ id: 'loop', steps: [{ name: 'loop', run: 'sleep 600' }] });
    const deployed = await fleet.user('alice').client.deploy('ev-dep', { mode: 'replace', jobs: [job] });
    const running = await alice.next('deployment.status', (e) => e.data.device_id === 'ev-dep' && e.data.state === 'running');
    expect(running.data).toMatchObject({ deployment_id: deployed.deployment_id, device: 'ev-dep', jobs: [expect.objectContaining({ id: 'loop', status: 'running' })], health: expect.any(String) });
    fleet.device('ev-dep').runtime!.kill('SIGTERM');
  });

  it('tells registration.pending to whoever may approve it, then registration.approved and registration.rejected', async () => {
    const alice = await open('alice');
    const bob = await open('bob');
    const submitted = await submitRegistration(fleet.server, 'ev-new', `user:${ALICE}`, { hostname: 'ev-new-host' });
    const pending = await alice.next('registration.pending', (e) => e.data.device_id === 'ev-new');
    expect(pending.data).toMatchObject({ request_id: submitted.requestId, owner_scope: `user:${ALICE}`, fingerprint: submitted.fingerprint, hostname: 'ev-new-host', platform: 'linux' });
    await owner().run('devices_approve', { device: submitted.requestId });
    await alice.next('registration.approved', (e) => e.data.request_id === submitted.requestId);
    const second = await requestRegistration(fleet.server, 'ev-refused', `user:${ALICE}`);
    await owner().run('devices_reject', { device: second });
    expect((await alice.next('registration.rejected', (e) => e.data.request_id === second)).data).toMatchObject({ decided_by: ALICE, device_id: 'ev-refused' });
    await requestRegistration(fleet.server, 'ev-bob-marker-2', `user:${BOB}`);
    await bob.next('registration.pending', (e) => e.data.device_id === 'ev-bob-marker-2');
    expect(bob.events.filter((e) => e.event.startsWith('registration.') && e.data.owner_scope !== `user:${BOB}`)).toEqual([]);
  });

  it("stops a device's events to a user the moment its share is removed", async () => {
    const carol = await open('carol');
    await share('ev-quiet', CAROL);
    await carol.next('access.changed', (e) => e.data.device_id === 'ev-quiet' && e.data.change === 'share_added');
    await share('ev-quiet', BOB);
    await carol.next('access.changed', (e) => e.data.scope === `user:${BOB}`);
    const seen = carol.events.length;
    await unshare('ev-quiet', CAROL);
    await unshare('ev-quiet', BOB);
    await requestRegistration(fleet.server, 'ev-carol-marker', `user:${CAROL}`);
    await carol.next('registration.pending', (e) => e.data.device_id === 'ev-carol-marker', seen);
    expect(carol.events.slice(seen).filter((e) => e.data.device_id === 'ev-quiet')).toEqual([]);
  });

  it("follows a member's organizations as they change: an organization's device events start with membership and stop with it", async () => {
    const carol = await open('carol');
    await owner().run('org_members_add', { org_id: 'evorg', email: CAROL, role: 'viewer' });
    const added = await carol.next('access.changed', (e) => e.data.org_id === 'evorg' && e.data.change === 'member_added');
    expect(added.data).toMatchObject({ email: CAROL, role: 'viewer' });
    await share('ev-org-dev', BOB);
    await carol.next('access.changed', (e) => e.data.device_id === 'ev-org-dev' && e.data.change === 'share_added');
    await owner().run('org_members_remove', { org_id: 'evorg', email: CAROL });
    await carol.next('access.changed', (e) => e.data.org_id === 'evorg' && e.data.change === 'member_removed');
    const seen = carol.events.length;
    await unshare('ev-org-dev', BOB);
    await requestRegistration(fleet.server, 'ev-carol-marker-2', `user:${CAROL}`);
    await carol.next('registration.pending', (e) => e.data.device_id === 'ev-carol-marker-2', seen);
    expect(carol.events.slice(seen).filter((e) => e.data.device_id === 'ev-org-dev')).toEqual([]);
  });

  it('replays exactly the missed events after Last-Event-ID, then follows live', async () => {
    const first = await open('alice');
    await eventually('the opening id', () => first.lastId);
    const resumeFrom = first.lastId!;
    first.close();
    await share('ev-quiet', CAROL);
    await share('ev-quiet', BOB);
    await unshare('ev-quiet', CAROL);
    const resumed = await open('alice', resumeFrom);
    await resumed.next('access.changed', (e) => e.data.change === 'share_removed' && e.data.scope === `user:${CAROL}`);
    await unshare('ev-quiet', BOB);
    await resumed.next('access.changed', (e) => e.data.change === 'share_removed' && e.data.scope === `user:${BOB}`);
    expect(resumed.events.map((e) => [e.data.change, e.data.scope])).toEqual([
      ['share_added', `user:${CAROL}`],
      ['share_added', `user:${BOB}`],
      ['share_removed', `user:${CAROL}`],
      ['share_removed', `user:${BOB}`],
    ]);
    const ids = resumed.events.map((e) => Number(e.id!.split('-')[1]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('answers an id out of the window (too old, unknown, malformed) with a reset first', async () => {
    const first = await open('alice');
    await eventually('the opening id', () => first.lastId);
    const old = first.lastId!;
    await share('ev-quiet', CAROL);
    await unshare('ev-quiet', CAROL);
    fleet.server.clock.advance((WINDOW_SECS + 1) * 1000);
    for (const id of [old, 'ffff-1', 'not an id']) {
      const stream = await open('alice', id);
      const reset = await stream.next('reset');
      expect(stream.events[0]).toBe(reset);
      expect(reset.data).toMatchObject({ type: 'reset', at: expect.any(String) });
      expect(reset.id).toMatch(/^[0-9a-f]+-\d+$/);
      stream.close();
    }
  });

  it(`allows ${MAX_STREAMS} streams per user, then answers 429`, async () => {
    for (let i = 0; i < MAX_STREAMS; i++) expect((await open('bob')).status).toBe(200);
    const refused = await open('bob');
    await refused.ended;
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.raw())).toMatchObject({ code: 'RATE_LIMITED' });
    for (const stream of streams.splice(0)) stream.close();
    const registry = fleet.server.app.get(EventStreams);
    await eventually('the closed streams to be forgotten', () => registry.stats().every((s) => s.email !== BOB));
    expect((await open('bob')).status).toBe(200);
  });

  it('drops a client that does not read, holding no more than a bounded buffer for it meanwhile', async () => {
    const registry = fleet.server.app.get(EventStreams);
    const serverSockets: Socket[] = [];
    const http = fleet.server.app.getHttpServer();
    const track = (s: Socket) => serverSockets.push(s);
    http.on('connection', track);
    const socket: Socket = connect(Number(new URL(fleet.server.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fleet.user('carol').caller.token}\r\n\r\n`);
    socket.pause();
    await eventually("carol's stream to open", () => registry.stats().some((s) => s.email === CAROL));
    const held = serverSockets.find((s) => s.remotePort === socket.localPort)!;
    http.off('connection', track);
    expect(held).toBeDefined();
    const long = 'x'.repeat(250);
    const { publicKey } = generateDeviceIdentity();
    let maxBuffered = 0;
    let maxQueued = 0;
    let sent = 0;
    const stillOpen = () => registry.stats().some((s) => s.email === CAROL);
    while (stillOpen() && sent < 20_000) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api().post('/auth/device', {
            device_id: `flood-${sent + i}`,
            owner_scope: `user:${CAROL}`,
            device_info: { hostname: long, platform: long, architecture: long, os_version: long },
            public_key: publicKey,
          }),
        ),
      );
      sent += 20;
      for (const s of registry.stats().filter((x) => x.email === CAROL)) {
        maxBuffered = Math.max(maxBuffered, s.bufferedBytes);
        maxQueued = Math.max(maxQueued, s.queued);
      }
    }
    expect(stillOpen()).toBe(false);
    // The server let go of the connection itself (not only of the stream), with what its socket held.
    await eventually("the server's end of the connection to be destroyed", () => held.destroyed);
    socket.destroy();
    // The socket's buffer (its high-water mark: 16 KiB on Node 20, 64 KiB from Node 22) plus one
    // event, and at most two windows of references.
    expect(maxBuffered).toBeLessThan(held.writableHighWaterMark + 16 * 1024);
    expect(maxQueued).toBeLessThanOrEqual(2 * WINDOW);
  }, 300_000);
});
