import * as http2 from 'node:http2';
import { AddressInfo } from 'node:net';
import { DeploymentStatusReport, encodeChannelLine, encodeStreamArgs, TUNNEL_HEADERS } from '@svc/common';
import { deployment, EngineKit, job, sleeper } from '../../../../test/fixtures/deployment-jobs';
import { RuntimeLogger } from '../logging/runtime-logger';
import { OperationRegistry } from '../supervisor/operation-registry';
import { StreamRouter } from '../tunnel/stream-router';
import { deploymentChannelHandler } from './deployment-channel-handler';
import type { DeploymentEngine } from './deployment-engine';
import { deploymentLogsHandler } from './deployment-logs-handler';
import { eventually } from '../../../../test/fixtures/eventually';

/** The two deployment handlers behind a real HTTP/2 session, the runtime's side being the server, as on the tunnel. */
describe('deployment channel and logs handlers', () => {
  const kit = new EngineKit();
  let server: http2.Http2Server;
  let client: http2.ClientHttp2Session;
  let engine: DeploymentEngine;
  const operations = new OperationRegistry();
  /** What the handlers logged, every level: JSON lines. */
  let logged: { level: string; msg: string; reason?: string }[] = [];

  beforeEach(async () => {
    engine = kit.engine();
    await engine.start();
    const handlers = { deployments: deploymentChannelHandler(engine, { coalesceMs: 100, heartbeatMs: 400 }), 'deployments/logs': deploymentLogsHandler(engine) };
    logged = [];
    const router = new StreamRouter(handlers, operations, new RuntimeLogger('trace', (line) => logged.push(JSON.parse(line))));
    server = http2.createServer();
    server.on('stream', (stream, headers) => router.handle(stream, headers));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterEach(async () => {
    await operations.abortAll('test over', 5000);
    client.close();
    await new Promise((resolve) => server.close(resolve));
    await kit.cleanUp();
  });

  function open(path: string, args: Record<string, unknown> = {}) {
    const request = client.request({ ':method': 'POST', ':path': path, [TUNNEL_HEADERS.args]: encodeStreamArgs(args) });
    const status = new Promise<number>((resolve) => request.on('response', (headers) => resolve(Number(headers[':status']))));
    let text = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    request.on('error', () => undefined);
    return { request, status, text: () => text };
  }

  function reportsOf(text: string): DeploymentStatusReport[] {
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .map((message) => {
        expect(message.type).toBe('report');
        return message.report;
      });
  }

  it('answers 200, applies desired states and reports after each, on changes and as a heartbeat', async () => {
    const channel = open('/v1/deployments');
    expect(await channel.status).toBe(200);
    channel.request.write(encodeChannelLine({ type: 'desired', desired: { revision: 1, deployment: deployment('d1', [sleeper('a')]) } }));
    const first = await eventually('a report', () => reportsOf(channel.text())[0]);
    expect(first).toMatchObject({ deployment_id: 'd1', jobs: [{ id: 'a' }] });
    const running = await eventually('running reported', () => reportsOf(channel.text()).find((report) => report.status === 'running'));
    expect(running.jobs[0]).toMatchObject({ status: 'running', health: 'healthy' });
    // Nothing changes: the heartbeat still reports.
    const count = reportsOf(channel.text()).length;
    await eventually('a heartbeat', () => reportsOf(channel.text()).length > count);

    // Junk and unknown types are skipped; the channel stays.
    channel.request.write('not json\n{"type":"hello"}\n');
    channel.request.write(encodeChannelLine({ type: 'desired', desired: { revision: 2, deployment: null } }));
    await eventually('stopped reported', () => reportsOf(channel.text()).some((report) => report.deployment_id === 'd1' && report.status === 'stopped'));
  });

  it('coalesces change reports and only sends them when what they say changed', async () => {
    const channel = open('/v1/deployments');
    await channel.status;
    const flapping = job({ id: 'flap', steps: [{ name: 'main', run: 'exit 1' }], restart: { policy: 'always', backoff: '20ms', max_backoff: '20ms' } });
    channel.request.write(encodeChannelLine({ type: 'desired', desired: { revision: 1, deployment: deployment('d1', [flapping]) } }));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const times = reportsOf(channel.text()).map((report) => Date.parse(report.reported_at));
    // The job changes state dozens of times a second; at most about one report per 100 ms reaches the server.
    expect(times.length).toBeLessThanOrEqual(14);
    expect(times.length).toBeGreaterThanOrEqual(2);
  });

  it('a second channel replaces the first', async () => {
    const first = open('/v1/deployments');
    await first.status;
    const firstClosed = new Promise((resolve) => first.request.on('close', resolve));
    const second = open('/v1/deployments');
    expect(await second.status).toBe(200);
    await firstClosed;
    second.request.write(encodeChannelLine({ type: 'desired', desired: { revision: 1, deployment: deployment('d1', [sleeper('a')]) } }));
    await eventually('a report on the second', () => reportsOf(second.text()).length > 0);
    // Routine (a newer tunnel brings it): a debug line, not information for the operator.
    expect(logged.filter((line) => line.msg === 'deployment channel closed')).toEqual([expect.objectContaining({ level: 'debug', reason: 'replaced by a newer channel' })]);
  });

  it('keeps reporting on the channel that replaced another, a line printed after the last change coming with the heartbeat', async () => {
    const first = open('/v1/deployments');
    await first.status;
    const late = job({ id: 'late', steps: [{ name: 'main', run: 'sleep 0.5; echo printed late; exec sleep 60' }] });
    first.request.write(encodeChannelLine({ type: 'desired', desired: { revision: 1, deployment: deployment('d1', [late]) } }));
    await eventually('running reported', () => reportsOf(first.text()).find((report) => report.status === 'running'));
    const firstClosed = new Promise((resolve) => first.request.on('close', resolve));
    const second = open('/v1/deployments');
    await firstClosed;
    // No desired state on the second channel: only its own heartbeat can report.
    const report = await eventually('the late line on the second channel', () =>
      reportsOf(second.text()).find((each) => each.jobs[0]?.log_tail?.includes('printed late')),
    );
    expect(report).toMatchObject({ deployment_id: 'd1', status: 'running' });
  });

  it('serves a job log: the last lines, then new ones while following; an unknown job is a 404', async () => {
    const chatty = job({ id: 'chatty', steps: [{ name: 'main', run: 'for i in 1 2 3 4 5; do echo line $i; done; while true; do echo tick; sleep 0.1; done' }] });
    await engine.apply({ revision: 1, deployment: deployment('d1', [chatty]) });
    await eventually('five lines', () => engine.log('chatty')!.tail(100).includes('line 5'));

    const tail = open('/v1/deployments/logs', { job: 'chatty', follow: false, tail: 3 });
    expect(await tail.status).toBe(200);
    await new Promise((resolve) => tail.request.on('end', resolve));
    expect(tail.text().split('\n').filter(Boolean)).toHaveLength(3);

    const follow = open('/v1/deployments/logs', { job: 'chatty', follow: true, tail: 0 });
    expect(await follow.status).toBe(200);
    await eventually('new lines', () => follow.text().split('\n').filter((line) => line === 'tick').length >= 3);
    follow.request.close();
    await eventually('the follower gone', () => operations.size === 0);

    const unknown = open('/v1/deployments/logs', { job: 'nope', follow: false, tail: 10 });
    expect(await unknown.status).toBe(404);
    await new Promise((resolve) => unknown.request.on('end', resolve));
    expect(JSON.parse(unknown.text())).toMatchObject({ code: 'NOT_FOUND' });

    const bad = open('/v1/deployments/logs', { job: 'chatty', tail: -1 });
    expect(await bad.status).toBe(400);
  });
});
