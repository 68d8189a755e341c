import type { IncomingMessage } from 'node:http';
import { DeployJobsResult, findOperation, OperationContract, httpRequestFor, OperationName, OperationResults, ROUTES, subRoutePath } from '@svc/common/operations';
import { CLIENT_KIND_HEADER, CLIENT_KIND_MCP } from '@svc/common/tunnel';
import type { DeployRequest } from '@svc/common';
import { CliSettings } from '../config/cli-settings';
import { UserSession } from './user-session';
import type { DeviceFiles } from './device-files';
import { DeviceStreams, discoverDeviceStreams } from './device-streams';
import { RestClient } from './rest-client';

export interface SvcClientOptions {
  settings: CliSettings;
  /** `svc mcp`: every request says so, and the server marks its audit entries "via MCP". */
  viaMcp?: boolean;
  userAgent?: string;
}

/**
 * The typed SDK both the oclif commands and `svc mcp` stand on: catalog operations over REST
 * (`call`), device streams (shell, forward, docker) and file transfer, all with the user's
 * token, refreshed when it expires.
 */
export class SvcClient {
  readonly settings: CliSettings;
  readonly rest: RestClient;
  readonly session: UserSession;
  private readonly headers: Record<string, string>;
  private streamsPromise: Promise<DeviceStreams> | undefined;
  private filesClient: DeviceFiles | undefined;

  constructor(options: SvcClientOptions) {
    this.settings = options.settings;
    this.headers = options.viaMcp ? { [CLIENT_KIND_HEADER]: CLIENT_KIND_MCP } : {};
    this.rest = new RestClient({ baseUrl: options.settings.serverUrl, ca: options.settings.trust.ca, userAgent: options.userAgent, headers: this.headers });
    this.session = new UserSession(options.settings, this.rest);
  }

  /** An operation of the catalog that a REST route serves, with the route's optional extras. */
  call<N extends OperationName>(name: N, input: Record<string, unknown>, timeoutMs?: number): Promise<OperationResults[N]> {
    const op = findOperation(name) as OperationContract | undefined;
    if (!op?.http) throw new Error(`${name} is not served by a REST route`);
    const spec = httpRequestFor(op, input);
    return this.rest.request<OperationResults[N]>({ ...spec, authorization: () => this.session.authorization(), timeoutMs });
  }

  /** device_deploy's route: a DeployRequest the caller built from its file (loadDeploySpec). */
  deploy(device: string, request: DeployRequest): Promise<DeployJobsResult> {
    return this.rest.request<DeployJobsResult>({ method: 'POST', path: subRoutePath('device_deploy.jobs', { device }), body: request, authorization: () => this.session.authorization() });
  }

  /**
   * A job's log from the device, as UTF-8 text while it arrives: the last `tail` lines, then with
   * `follow` every new line until the caller destroys the answer. An answer that breaks off (no
   * clean end) means the device or the server went away.
   */
  deploymentLogs(device: string, job: string, options: { follow?: boolean; tail?: number } = {}): Promise<IncomingMessage> {
    const query: [string, string][] = [['follow', String(options.follow === true)]];
    if (options.tail !== undefined) query.push(['tail', String(options.tail)]);
    const path = subRoutePath('device_deploy.job_logs', { device, job_id: job });
    return this.rest.stream({ method: 'GET', path, query, authorization: () => this.session.authorization() });
  }

  /** GET /events (text/event-stream) from after `lastEventId`, or from now: followEvents reads it. */
  events(lastEventId?: string): Promise<IncomingMessage> {
    const authorization = () => this.session.authorization();
    return this.rest.stream({ method: 'GET', path: ROUTES.events.path, accept: 'text/event-stream', authorization, ...(lastEventId === undefined ? {} : { headers: { 'last-event-id': lastEventId } }) });
  }

  /** The HTTP/2 connection to the server's stream endpoint, discovered on first use. */
  streams(): Promise<DeviceStreams> {
    this.streamsPromise ??= discoverDeviceStreams(this.settings.serverUrl, () => this.accessToken(), this.settings.trust, this.headers);
    this.streamsPromise.catch(() => (this.streamsPromise = undefined));
    return this.streamsPromise;
  }

  /** File transfer, loaded on first use (exec and most commands never need it). */
  files(): DeviceFiles {
    const { DeviceFiles } = require('./device-files') as typeof import('./device-files');
    this.filesClient ??= new DeviceFiles({ serverUrl: this.settings.serverUrl, token: () => this.accessToken(), ca: this.settings.trust.ca, headers: this.headers });
    return this.filesClient;
  }

  async close(): Promise<void> {
    this.rest.close();
    const streams = await this.streamsPromise?.catch(() => undefined);
    await streams?.close();
    this.filesClient?.http.close();
  }

  private async accessToken(): Promise<string> {
    return (await this.session.authorization()).replace(/^Bearer /, '');
  }
}
