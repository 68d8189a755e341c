/**
 * A job's log over REST (docs/protocol.md, "Deployments", Logs): the server opens
 * `deployments/logs` on the device's tunnel (the tunnel stub plays the runtime) and relays its
 * text, following until the client leaves; the device's refusal is the REST error. Offline
 * devices, authorization and bad queries: deployments-api.e2e-spec.ts. The first read is fetch on
 * purpose: the answer's media type is the REST contract checked.
 */
import type { ServerHttp2Stream } from 'node:http2';
import { TUNNEL_OPS } from '@svc/common';
import type { Caller } from './fixtures/api-client';
import { expectRefused } from './fixtures/expect-error';
import { useFleet } from './fixtures/fleet';
import type { TestServer } from './fixtures/test-server';
import { connectRuntimeStub, RuntimeStub } from './fixtures/tunnel-runtime-stub';

const OWNER = 'owner@logs.test';

describe('job logs', () => {
  // Declared before the fleet, so that it runs first: the stub leaves before the server stops.
  afterAll(() => {
    stub?.close();
  });
  const fleet = useFleet({ users: { owner: OWNER }, devices: { 'logs-1': { owner: 'owner' } }, relay: true });
  let server: TestServer;
  let owner: Caller;
  let stub: RuntimeStub | undefined;
  const id = 'logs-1';
  let seenArgs: Record<string, unknown>[];
  let cancelled: Promise<void>;
  let onCancel: () => void;

  const logs = (stream: ServerHttp2Stream, args: Record<string, unknown>) => {
    seenArgs.push(args);
    stream.on('error', () => undefined);
    if (args.job === 'missing') {
      stream.respond({ ':status': 404, 'content-type': 'application/json' });
      stream.end(JSON.stringify({ code: 'NOT_FOUND', message: 'No job missing runs on this device' }));
      return;
    }
    stream.respond({ ':status': 200 });
    stream.write(`log of ${String(args.job)}: line 1\n`);
    if (!args.follow) {
      stream.end('line 2\n');
      return;
    }
    const timer = setInterval(() => stream.write('more\n'), 50);
    stream.on('close', () => {
      clearInterval(timer);
      onCancel();
    });
  };

  beforeAll(async () => {
    server = fleet.server;
    owner = fleet.user('owner').caller;
    stub = await connectRuntimeStub({ port: server.tunnel!.port, ca: server.tunnel!.caFile, apiKey: fleet.device(id).apiKey, handlers: { [TUNNEL_OPS.deploymentLogs]: logs } });
    expect(stub.hello.ok).toBe(true);
  });
  beforeEach(() => {
    seenArgs = [];
    cancelled = new Promise((resolve) => (onCancel = resolve));
  });

  it('streams a job log as text from the device', async () => {
    const res = await fetch(`${server.url}/devices/${id}/deployments/jobs/web/logs?tail=20`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe('log of web: line 1\nline 2\n');
    expect(seenArgs).toEqual([{ job: 'web', follow: false, tail: 20 }]);
    const audit = (await fleet.user('owner').route('device_audit_logs.one', { device: id, max: 5 })).logs;
    expect(audit).toContainEqual(expect.objectContaining({ user: OWNER, action: 'device.deployment_logs_read', details: 'read the log of job web' }));
  });

  it('follows until the client leaves, then cancels the device stream', async () => {
    const res = await fleet.user('owner').client.deploymentLogs(id, 'web', { follow: true });
    let text = '';
    for await (const chunk of res) if ((text += String(chunk)).includes('more\nmore\n')) break;
    expect(seenArgs).toEqual([{ job: 'web', follow: true, tail: 100 }]);
    res.destroy();
    await cancelled;
  });

  it("relays the device's refusal", async () => {
    await expectRefused(fleet.user('owner').client.deploymentLogs(id, 'missing'), 404, 'NOT_FOUND', 'No job missing runs on this device');
  });
});
