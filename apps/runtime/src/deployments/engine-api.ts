import { request as httpRequest, IncomingMessage } from 'node:http';

/**
 * A small client for the Docker Engine API (Docker, or Podman's `podman system service`) over
 * its unix socket, with node:http alone: a device carries no Docker SDK. Paths are unversioned,
 * so the engine answers in its own API version (Docker 29 refuses versions below 1.44; Podman
 * speaks 1.41). Every request has a deadline, and no answer is read beyond a size limit.
 */

const REQUEST_TIMEOUT_MS = 30_000;
const PULL_TIMEOUT_MS = 15 * 60_000;
/** A JSON answer larger than this is refused (a long container list is a few MiB). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** One line of a pull's progress stream; longer lines are cut (only their `error` matters). */
const MAX_PROGRESS_LINE = 64 * 1024;

export class EngineApiError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'EngineApiError';
  }
}

export type Labels = Record<string, string>;

export interface ContainerSummary {
  Id: string;
  Names?: string[];
  Image: string;
  ImageID: string;
  Labels: Labels | null;
  State: string;
}

export interface EndpointSettings {
  IPAMConfig?: unknown;
  Links?: string[] | null;
  Aliases?: string[] | null;
  DriverOpts?: Record<string, string> | null;
  [field: string]: unknown;
}

/** The parts of `GET /containers/{id}/json` the update check reads; the rest is passed through. */
export interface ContainerInspect {
  Id: string;
  Name: string;
  /** The image ID the container was created from. */
  Image: string;
  State: { Running: boolean; Status?: string };
  Config: ContainerConfig;
  HostConfig: HostConfig;
  NetworkSettings?: { Networks?: Record<string, EndpointSettings> | null };
}

export interface ContainerConfig {
  /** The reference the container was created with, e.g. `nginx:1.27` or `localhost/app:latest`. */
  Image: string;
  Hostname?: string;
  User?: string;
  WorkingDir?: string;
  Env?: string[] | null;
  Cmd?: string[] | null;
  Entrypoint?: string[] | null;
  Labels?: Labels | null;
  Volumes?: Record<string, unknown> | null;
  ExposedPorts?: Record<string, unknown> | null;
  Healthcheck?: unknown;
  StopTimeout?: number | null;
  [field: string]: unknown;
}

export interface HostConfig {
  NetworkMode?: string;
  AutoRemove?: boolean;
  Links?: string[] | null;
  PortBindings?: Record<string, unknown> | null;
  Ulimits?: { Name: string; Soft: number; Hard: number }[] | null;
  Devices?: { PathOnHost: string; PathInContainer: string; CgroupPermissions?: string }[] | null;
  [field: string]: unknown;
}

export interface ImageInspect {
  Id: string;
  Config?: Partial<ContainerConfig> | null;
}

export interface CreateContainerBody extends ContainerConfig {
  HostConfig: HostConfig;
  NetworkingConfig?: { EndpointsConfig: Record<string, EndpointSettings> };
}

interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export class EngineApi {
  constructor(
    readonly socketPath: string,
    private readonly timeoutMs = REQUEST_TIMEOUT_MS,
    private readonly pullTimeoutMs = PULL_TIMEOUT_MS,
  ) {}

  /** All containers, running or not, that carry `labelKey` (any value). */
  listContainers(labelKey: string): Promise<ContainerSummary[]> {
    return this.json({ method: 'GET', path: '/containers/json', query: { all: 'true', filters: JSON.stringify({ label: [labelKey] }) } });
  }

  inspectContainer(id: string): Promise<ContainerInspect> {
    return this.json({ method: 'GET', path: `/containers/${segment(id)}/json` });
  }

  /** `undefined` when the engine has no such image. */
  async inspectImage(reference: string): Promise<ImageInspect | undefined> {
    try {
      return await this.json<ImageInspect>({ method: 'GET', path: `/images/${segment(reference)}/json` });
    } catch (error) {
      if (error instanceof EngineApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * `POST /images/create?fromImage=…&tag=…`. The engine answers 200 and then streams progress;
   * a failure (unknown image, registry unreachable) arrives as an `error` line in that stream.
   */
  async pullImage(name: string, tag: string, signal?: AbortSignal): Promise<void> {
    const res = await this.send({ method: 'POST', path: '/images/create', query: { fromImage: name, tag }, timeoutMs: this.pullTimeoutMs, signal });
    if (res.statusCode !== 200) throw await this.failure(res, 'POST', '/images/create');
    const error = await lastProgressError(res);
    if (error !== undefined) throw new EngineApiError(`pull ${name}:${tag}: ${error}`);
  }

  /** Stops the container, giving it `timeoutSecs` before the engine kills it; stopped already is fine. */
  async stopContainer(id: string, timeoutSecs: number): Promise<void> {
    await this.done({ method: 'POST', path: `/containers/${segment(id)}/stop`, query: { t: String(timeoutSecs) }, timeoutMs: timeoutSecs * 1000 + this.timeoutMs }, [304]);
  }

  async renameContainer(id: string, name: string): Promise<void> {
    await this.done({ method: 'POST', path: `/containers/${segment(id)}/rename`, query: { name } });
  }

  async createContainer(name: string, body: CreateContainerBody): Promise<string> {
    const created = await this.json<{ Id: string }>({ method: 'POST', path: '/containers/create', query: { name }, body });
    return created.Id;
  }

  async connectNetwork(network: string, id: string, endpoint: EndpointSettings): Promise<void> {
    await this.done({ method: 'POST', path: `/networks/${segment(network)}/connect`, body: { Container: id, EndpointConfig: endpoint } });
  }

  async startContainer(id: string): Promise<void> {
    await this.done({ method: 'POST', path: `/containers/${segment(id)}/start` }, [304]);
  }

  /** Removes the container (forced: it may be running); its volumes stay. */
  async removeContainer(id: string): Promise<void> {
    await this.done({ method: 'DELETE', path: `/containers/${segment(id)}`, query: { force: 'true' } });
  }

  /** Sends one request and reads its JSON answer; statuses other than 2xx and `alsoOk` are errors. */
  async json<T>(call: Call, alsoOk: number[] = []): Promise<T> {
    const text = (await this.done(call, alsoOk)).toString('utf8');
    if (text.trim() === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new EngineApiError(`${call.method} ${call.path}: the engine answered with something other than JSON`);
    }
  }

  /** Sends one request for its status alone (engines answer some with `OK`, some with nothing); the answer's bytes. */
  private async done(call: Call, alsoOk: number[] = []): Promise<Buffer> {
    const res = await this.send(call);
    const status = res.statusCode ?? 0;
    if ((status < 200 || status > 299) && !alsoOk.includes(status)) throw await this.failure(res, call.method, call.path);
    return readBounded(res, MAX_ANSWER_BYTES);
  }

  private send(call: Call): Promise<IncomingMessage> {
    const search = call.query ? `?${new URLSearchParams(call.query).toString()}` : '';
    const payload = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body));
    const timeoutMs = call.timeoutMs ?? this.timeoutMs;
    return new Promise((resolve, reject) => {
      const req = httpRequest({
        socketPath: this.socketPath,
        path: `${call.path}${search}`,
        method: call.method,
        // One connection per request: nothing stays open between checks.
        agent: false,
        headers: { host: 'engine', ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) },
        signal: call.signal,
      });
      let response: IncomingMessage | undefined;
      // The deadline covers reading the answer too: a stalled answer is cut.
      const timer = setTimeout(() => {
        const error = new EngineApiError(`${call.method} ${call.path}: no complete answer from the container engine within ${timeoutMs} ms`);
        if (response) response.destroy(error);
        else req.destroy(error);
      }, timeoutMs);
      req.once('close', () => response ?? clearTimeout(timer));
      req.once('error', (error) => {
        clearTimeout(timer);
        reject(error instanceof EngineApiError ? error : new EngineApiError(`${call.method} ${call.path}: ${error.message}`));
      });
      req.once('response', (res) => {
        response = res;
        res.once('close', () => clearTimeout(timer));
        resolve(res);
      });
      req.end(payload);
    });
  }

  private async failure(res: IncomingMessage, method: string, path: string): Promise<EngineApiError> {
    let detail = '';
    try {
      const text = (await readBounded(res, 64 * 1024)).toString('utf8');
      detail = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch (error) {
      detail = (error as Error).message;
    }
    return new EngineApiError(`${method} ${path}: ${res.statusCode} ${detail.trim()}`.trim(), res.statusCode);
  }
}

function readBounded(res: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        res.destroy();
        reject(new EngineApiError(`the container engine's answer exceeds ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    res.once('end', () => resolve(Buffer.concat(chunks)));
    res.once('error', (error) => reject(asEngineError(error)));
    res.once('close', () => {
      if (!res.complete) reject(new EngineApiError('the container engine closed the connection mid-answer'));
    });
  });
}

/** Reads a progress stream (JSON lines) to its end, keeping memory bounded; the last `error`, if any. */
function lastProgressError(res: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    let line = '';
    let error: string | undefined;
    const take = (text: string) => {
      if (!text.trim()) return;
      try {
        const message = JSON.parse(text) as { error?: string; errorDetail?: { message?: string } };
        if (message.error || message.errorDetail?.message) error = message.errorDetail?.message ?? message.error;
      } catch {
        // A cut or garbled progress line says nothing about success.
      }
    };
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const parts = (line + chunk).split('\n');
      line = parts.pop()!.slice(0, MAX_PROGRESS_LINE);
      parts.forEach(take);
    });
    res.once('end', () => {
      take(line);
      resolve(error);
    });
    res.once('error', (error) => reject(asEngineError(error)));
    res.once('close', () => {
      if (!res.complete) reject(new EngineApiError('the container engine closed the pull stream before it ended'));
    });
  });
}

function asEngineError(error: Error): EngineApiError {
  return error instanceof EngineApiError ? error : new EngineApiError(`reading the container engine's answer: ${error.message}`);
}

/** A path segment as Docker's own client writes it: a reference keeps its `/`, `:` and `@`. */
function segment(value: string): string {
  return encodeURIComponent(value).replace(/%2F/gi, '/').replace(/%3A/gi, ':').replace(/%40/gi, '@');
}
