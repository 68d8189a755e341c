/**
 * GET /metrics (Prometheus text, prom-client) on each replica: refused without credentials and to
 * a user who is not a server administrator, answered with the admin key; its numbers follow what
 * happens: a tunnel coming up on B (by carrier), an exec through A (a peer hop) and on B, a
 * registration request waiting, the device's deployment reports (on B, its holder), NATS connected,
 * halted and back. /metrics is no catalog operation: its HTTP route, media type and refusals are
 * what is under test, so it is asked for raw.
 */
import type { Caller } from './fixtures/api-client';
import { eventually } from './fixtures/eventually';
import { ReplicaName, useReplicaFleet } from './fixtures/replica-fleet';
import { deployRequest, serviceJob } from './fixtures/deployments';
import { TEST_CARRIER } from './fixtures/runtime-process';
import { requestRegistration, TEST_ADMIN_KEY } from './fixtures/test-server';

const ALICE = 'alice@replica-metrics.test';
const DEVICE = 'metrics-1';
const ADMIN: Caller = { adminKey: TEST_ADMIN_KEY };

/** The sum of a metric's samples whose labels include `labels` (0 when there is none). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) sum += Number(match[3]);
  }
  return sum;
}

describe('replicas on NATS: GET /metrics', () => {
  const fleet = useReplicaFleet({ users: { alice: ALICE } });
  const alice = (on: ReplicaName) => fleet.user('alice').on(on);
  const api = (on: ReplicaName) => (on === 'a' ? fleet.a.api : fleet.b.api);

  const scrape = async (on: ReplicaName): Promise<string> => {
    const answer = await api(on).get('/metrics', ADMIN);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain;.*version=0\.0\.4/);
    return answer.body as string;
  };

  it('is never public: 401 without credentials, 403 for a user who is not a server administrator, like the rest of the API', async () => {
    for (const on of ['a', 'b'] as const) {
      const anonymous = await api(on).get('/metrics', {});
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ statusCode: 401, code: 'UNAUTHENTICATED', requestId: expect.any(String) });
      expect((await api(on).get('/metrics', { adminKey: 'wrong' })).status).toBe(401);
    }
    const user = await fleet.a.api.get('/metrics', fleet.user('alice').caller);
    expect(user.body).toMatchObject({ statusCode: 403, code: 'FORBIDDEN' });
  });

  it('counts the tunnel B holds, the exec through A (a peer hop) and on B, pending registrations and the NATS connection', async () => {
    const beforeB = await scrape('b');
    expect(sample(beforeB, 'svc_tunnels', { replica: 'replica-b' })).toBe(0);
    expect(sample(beforeB, 'svc_nats_connected')).toBe(1);
    expect(sample(await scrape('a'), 'svc_nats_connected')).toBe(1);

    await fleet.addDevice(DEVICE, { owner: 'alice', runtime: { on: 'b' } });
    await eventually('B to count the tunnel', async () => sample(await scrape('b'), 'svc_tunnels', { replica: 'replica-b' }) === 1);
    // By carrier: the one the runtime dialled (TCP, or QUIC with SVC_TEST_CARRIER=quic), none on the other.
    const tunnelsB = await scrape('b');
    const other = TEST_CARRIER === 'tcp' ? 'quic' : 'tcp';
    expect([sample(tunnelsB, 'svc_tunnels', { replica: 'replica-b', carrier: TEST_CARRIER }), sample(tunnelsB, 'svc_tunnels', { replica: 'replica-b', carrier: other })]).toEqual([1, 0]);
    expect(sample(await scrape('a'), 'svc_tunnels', { replica: 'replica-a' })).toBe(0);
    await eventually('A to see the device B holds', async () => (await alice('a').route('device_status.one', { device: DEVICE })).status === 'online');

    const beforeA = await scrape('a');
    const output = 'x'.repeat(50_000);
    const throughA = (await alice('a').run('device_exec', { device: DEVICE, command: ['sh', '-c', "head -c 50000 /dev/zero | tr '\\0' x"] })) as { output: string; exit_code: number };
    expect(throughA.output === output && throughA.exit_code === 0).toBe(true);
    const afterA = await scrape('a');
    expect(sample(afterA, 'svc_streams_total', { op: 'exec', route: 'peer' }) - sample(beforeA, 'svc_streams_total', { op: 'exec', route: 'peer' })).toBe(1);
    expect(sample(afterA, 'svc_peer_hops_total', { outcome: 'opened' }) - sample(beforeA, 'svc_peer_hops_total', { outcome: 'opened' })).toBe(1);
    expect(sample(afterA, 'svc_peer_hop_open_seconds_count') - sample(beforeA, 'svc_peer_hop_open_seconds_count')).toBe(1);
    expect(sample(afterA, 'svc_exec_duration_seconds_count', { route: 'peer' }) - sample(beforeA, 'svc_exec_duration_seconds_count', { route: 'peer' })).toBe(1);
    expect(sample(afterA, 'svc_stream_bytes_total', { direction: 'from_device', route: 'peer' }) - sample(beforeA, 'svc_stream_bytes_total', { direction: 'from_device', route: 'peer' })).toBeGreaterThanOrEqual(output.length);
    // B relayed it for A over its own tunnel.
    const afterB = await scrape('b');
    expect(sample(afterB, 'svc_streams_total', { op: 'exec', route: 'for_peer' })).toBe(1);
    expect(sample(afterB, 'svc_stream_bytes_total', { direction: 'from_device', route: 'for_peer' })).toBeGreaterThanOrEqual(output.length);

    expect(await alice('b').run('device_exec', { device: DEVICE, command: ['true'] })).toMatchObject({ exit_code: 0 });
    const localB = await scrape('b');
    expect(sample(localB, 'svc_streams_total', { op: 'exec', route: 'local' })).toBe(1);
    expect(sample(localB, 'svc_exec_duration_seconds_count', { route: 'local' })).toBe(1);

    const pending = sample(localB, 'svc_registrations_pending');
    await requestRegistration(fleet.a, 'metrics-waiting', `user:${ALICE}`);
    expect(sample(await scrape('b'), 'svc_registrations_pending')).toBe(pending + 1);
  });

  it('counts the deployment reports of the device B holds on B, by status and kept', async () => {
    const before = await scrape('b');
    const job = serviceJob('metrics-job', { steps: [{ name: 'main', run: 'exec sleep 600' }] });
    await alice('a').route('device_deploy.jobs', { device: DEVICE }, deployRequest([job]));
    // The device reports on its deployment channel, which its holder (B) serves.
    const after = await eventually('B to count a report of the running deployment', async () => {
      const text = await scrape('b');
      return sample(text, 'svc_deployment_reports_total', { status: 'running', kept: 'true' }) > sample(before, 'svc_deployment_reports_total', { status: 'running', kept: 'true' }) && text;
    });
    expect(sample(after, 'svc_deployment_reports_total', { kept: 'false' })).toBe(sample(before, 'svc_deployment_reports_total', { kept: 'false' }));
    expect(sample(await scrape('a'), 'svc_deployment_reports_total')).toBe(0);
  });

  it('reads svc_nats_connected 0 on both replicas while NATS is halted, and 1 once it is back', async () => {
    const connected = async () => [sample(await scrape('a'), 'svc_nats_connected'), sample(await scrape('b'), 'svc_nats_connected')];
    expect(await connected()).toEqual([1, 1]);
    await fleet.nats.halt();
    try {
      await eventually('both replicas to say NATS is gone', async () => JSON.stringify(await connected()) === '[0,0]');
    } finally {
      await fleet.nats.restart();
    }
    await eventually('both replicas to say NATS is back', async () => JSON.stringify(await connected()) === '[1,1]');
  });
});
