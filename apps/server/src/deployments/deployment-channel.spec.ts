import { Duplex } from 'node:stream';
import type { Logger } from '@nestjs/common';
import { DeploymentStatusReport, DesiredState, encodeChannelLine } from '@svc/common';
import type { StreamRequest, TunnelSession, TunnelStream } from '../relay/tunnel-carrier';
import { ChannelHost, DeploymentChannel } from './deployment-channel';
import { eventually } from '../../../../test/fixtures/eventually';

/** A server that records what the channel asks of it; refreshReport's answer is the test's. */
class FakeHost implements ChannelHost {
  readonly stored: DeploymentStatusReport[] = [];
  readonly refreshed: DeploymentStatusReport[] = [];
  refreshAnswer = true;
  readonly logger = { log: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;

  desiredState(): Promise<DesiredState> {
    return Promise.resolve({ revision: 1, deployment: null });
  }

  storeReport(_deviceId: string, report: DeploymentStatusReport): Promise<boolean> {
    this.stored.push(report);
    return Promise.resolve(true);
  }

  refreshReport(_deviceId: string, report: DeploymentStatusReport): Promise<boolean> {
    this.refreshed.push(report);
    return Promise.resolve(this.refreshAnswer);
  }

  heard(): void {}
  unsupported(): void {}
}

/** One tunnel session whose deployment stream is a Duplex: the test pushes the runtime's lines, the server's writes are kept. */
function fakeSession() {
  const written: string[] = [];
  const closed: Array<(reason: string) => void> = [];
  const body = new Duplex({
    read: () => undefined,
    write: (chunk: Buffer, _encoding, callback) => {
      written.push(chunk.toString());
      callback();
    },
  });
  const requests: StreamRequest[] = [];
  const stream: TunnelStream = {
    body,
    headers: {},
    trailers: Promise.resolve({}),
    endWithTrailers: () => undefined,
    abort: () => body.destroy(),
  };
  const session: TunnelSession = {
    deviceId: 'dev-1',
    carrier: 'tcp',
    runtime: undefined as unknown as TunnelSession['runtime'],
    remoteAddress: '127.0.0.1',
    openStream: (request) => {
      requests.push(request);
      return Promise.resolve(stream);
    },
    close: () => Promise.resolve(),
    onClosed: (listener) => void closed.push(listener),
  };
  /** Writes a report line as the runtime's deployment channel handler does. */
  const send = (report: DeploymentStatusReport) => body.push(encodeChannelLine({ type: 'report', report }));
  return { session, written, requests, send };
}

function report(deploymentId: string, logTail: string[]): DeploymentStatusReport {
  return {
    deployment_id: deploymentId,
    status: 'running',
    jobs: [{ id: 'app', status: 'running', health: 'healthy', restarts: 0, log_tail: logTail }],
    reported_at: new Date().toISOString(),
  };
}

describe('DeploymentChannel reports', () => {
  let host: FakeHost;
  let wire: ReturnType<typeof fakeSession>;
  let channel: DeploymentChannel;
  let running: Promise<void>;

  beforeEach(async () => {
    host = new FakeHost();
    wire = fakeSession();
    channel = new DeploymentChannel(wire.session, host);
    running = channel.run();
    // Reports sent after the desired state: the channel forgets what it stored when it sends one.
    await eventually('the desired state', () => wire.written.some((line) => JSON.parse(line).type === 'desired'), { intervalMs: 10 });
  });

  afterEach(async () => {
    channel.end();
    await running;
  });

  /** Sends a report on another deployment and waits until it is stored: every report sent before it was handled. */
  async function settle(): Promise<void> {
    const marker = report(`marker-${host.stored.length}`, []);
    wire.send(marker);
    await eventually('the marker report stored', () => host.stored.some((stored) => stored.deployment_id === marker.deployment_id), { intervalMs: 10 });
  }

  it('opens the deployments stream and stores a first report', async () => {
    expect(wire.requests).toEqual([expect.objectContaining({ op: 'deployments', actor: 'svc-server' })]);
    wire.send(report('web', ['one']));
    await eventually('the report stored', () => host.stored.length === 1, { intervalMs: 10 });
    expect(host.stored[0]).toMatchObject({ deployment_id: 'web', jobs: [{ log_tail: ['one'] }] });
    expect(host.refreshed).toEqual([]);
  });

  it('coalesces away a repeat with the same log tails: no storage call', async () => {
    wire.send(report('web', ['one']));
    await eventually('the first report stored', () => host.stored.length === 1, { intervalMs: 10 });
    wire.send(report('web', ['one']));
    await settle();
    expect(host.stored.map((stored) => stored.deployment_id)).toEqual(['web', 'marker-1']);
    expect(host.refreshed).toEqual([]);
  });

  it('puts a repeat with new log tails in place of the stored report', async () => {
    wire.send(report('web', ['one']));
    await eventually('the first report stored', () => host.stored.length === 1, { intervalMs: 10 });
    wire.send(report('web', ['one', 'two']));
    await eventually('the repeat refreshed', () => host.refreshed.length === 1, { intervalMs: 10 });
    await settle();
    expect(host.refreshed[0].jobs[0].log_tail).toEqual(['one', 'two']);
    expect(host.stored.map((stored) => stored.deployment_id)).toEqual(['web', 'marker-1']);
  });

  it('stores a repeat with new log tails afresh when nothing is stored to refresh any more', async () => {
    wire.send(report('web', ['one']));
    await eventually('the first report stored', () => host.stored.length === 1, { intervalMs: 10 });
    host.refreshAnswer = false; // the stored report expired, was pruned, or storage was reset
    wire.send(report('web', ['one', 'two']));
    await eventually('the repeat stored afresh', () => host.stored.length === 2, { intervalMs: 10 });
    expect(host.refreshed.map((refreshed) => refreshed.jobs[0].log_tail)).toEqual([['one', 'two']]);
    expect(host.stored[1]).toMatchObject({ deployment_id: 'web', jobs: [{ log_tail: ['one', 'two'] }] });

    // Kept as a fresh store: its own repeat is coalesced, and one with newer tails refreshes it.
    host.refreshAnswer = true;
    wire.send(report('web', ['one', 'two']));
    await settle();
    expect(host.refreshed).toHaveLength(1);
    wire.send(report('web', ['one', 'two', 'three']));
    await eventually('the next repeat refreshed', () => host.refreshed.length === 2, { intervalMs: 10 });
    expect(host.refreshed[1].jobs[0].log_tail).toEqual(['one', 'two', 'three']);
    expect(host.stored.map((stored) => stored.deployment_id)).toEqual(['web', 'web', 'marker-2']);
  });
});
