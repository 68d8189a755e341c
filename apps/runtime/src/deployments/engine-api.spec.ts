import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineApi, EngineApiError } from './engine-api';

/** A stand-in engine on a unix socket; each test says how it answers. */
describe('EngineApi over a unix socket', () => {
  let dir: string;
  let socket: string;
  let server: Server;
  let answer: (req: IncomingMessage, res: ServerResponse, body: string) => void;
  const seen: { method?: string; url?: string; body: string }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-engine-api-'));
    socket = join(dir, 'engine.sock');
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, body });
        answer(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => (seen.length = 0));

  const json = (status: number, value: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };

  it('lists labelled containers with a label filter, all states included', async () => {
    answer = json(200, [{ Id: 'c1' }]);
    expect(await new EngineApi(socket).listContainers('io.svc.update')).toEqual([{ Id: 'c1' }]);
    const url = new URL(seen[0].url!, 'http://engine');
    expect(url.pathname).toBe('/containers/json');
    expect(url.searchParams.get('all')).toBe('true');
    expect(JSON.parse(url.searchParams.get('filters')!)).toEqual({ label: ['io.svc.update'] });
  });

  it("answers undefined for an image the engine does not have, and an error with the engine's message otherwise", async () => {
    answer = json(404, { message: 'no such image' });
    expect(await new EngineApi(socket).inspectImage('localhost/app:1')).toBeUndefined();
    expect(seen[0].url).toBe('/images/localhost/app:1/json');
    answer = json(500, { message: 'storage is on fire' });
    await expect(new EngineApi(socket).inspectContainer('web')).rejects.toThrow(new EngineApiError('GET /containers/web/json: 500 storage is on fire'));
  });

  it('sends create as JSON and returns the new id', async () => {
    answer = json(201, { Id: 'new1', Warnings: [] });
    expect(await new EngineApi(socket).createContainer('web', { Image: 'x:1', HostConfig: {} })).toBe('new1');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/containers/create?name=web', body: JSON.stringify({ Image: 'x:1', HostConfig: {} }) });
  });

  it('takes 304 (already stopped, already started) as done', async () => {
    answer = (_req, res) => res.writeHead(304).end();
    await new EngineApi(socket).stopContainer('web', 7);
    await new EngineApi(socket).startContainer('web');
    expect(seen.map((s) => s.url)).toEqual(['/containers/web/stop?t=7', '/containers/web/start']);
  });

  it('reads a pull to its end and fails on an error in the progress stream', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":"Pulling from library/web"}\n{"status":"Downloading","progressDetail":{"current":1}}\n');
      res.end('{"errorDetail":{"message":"manifest unknown"},"error":"manifest unknown"}\n');
    };
    await expect(new EngineApi(socket).pullImage('web', '2')).rejects.toThrow('pull web:2: manifest unknown');
    expect(seen[0].url).toBe('/images/create?fromImage=web&tag=2');
    answer = (_req, res) => res.writeHead(200).end('{"status":"Downloaded newer image for web:2"}');
    await expect(new EngineApi(socket).pullImage('web', '2')).resolves.toBeUndefined();
  });

  it('gives up on an engine that does not answer in time', async () => {
    answer = () => undefined;
    await expect(new EngineApi(socket, 100).listContainers('x')).rejects.toThrow('GET /containers/json: no complete answer from the container engine within 100 ms');
  });

  it('gives up on an answer that stalls midway', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"Id":');
    };
    await expect(new EngineApi(socket, 100).listContainers('x')).rejects.toThrow(new EngineApiError('GET /containers/json: no complete answer from the container engine within 100 ms'));
  });

  it('refuses an answer that is not JSON', async () => {
    answer = (_req, res) => res.writeHead(200).end('<html>');
    await expect(new EngineApi(socket).listContainers('x')).rejects.toThrow('the engine answered with something other than JSON');
  });

  it('reports a socket nobody listens on as an error, not a crash', async () => {
    await expect(new EngineApi(join(dir, 'absent.sock')).listContainers('x')).rejects.toThrow(/GET \/containers\/json: connect ENOENT/);
  });
});
