import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuntimeLogger } from '../logging/runtime-logger';
import type { ContainerEngine } from './container-recreate';
import type { ContainerInspect, ContainerSummary, CreateContainerBody } from './engine-api';
import { ImageUpdateChecker, pullTarget } from './image-updates';

describe('pullTarget', () => {
  it.each([
    ['nginx', { name: 'nginx', tag: 'latest', localOnly: false }],
    ['nginx:1.27', { name: 'nginx', tag: '1.27', localOnly: false }],
    ['registry.example.com:5000/team/app', { name: 'registry.example.com:5000/team/app', tag: 'latest', localOnly: false }],
    ['registry.example.com:5000/team/app:v2', { name: 'registry.example.com:5000/team/app', tag: 'v2', localOnly: false }],
    ['localhost/app:dev', { name: 'localhost/app', tag: 'dev', localOnly: true }],
    ['localhost:5000/app:dev', { name: 'localhost:5000/app', tag: 'dev', localOnly: false }],
  ])('%s is pulled as %j', (reference, target) => expect(pullTarget(reference, 'sha256:0123456789abcdef')).toEqual(target));

  it.each([
    ['a digest', 'nginx@sha256:' + 'a'.repeat(64)],
    ['a tag and a digest', 'nginx:1.27@sha256:' + 'a'.repeat(64)],
    ['the image id', 'sha256:0123456789abcdef'],
    ['a short image id', '0123456789ab'],
  ])('%s is pinned: nothing to pull', (_what, reference) => expect(pullTarget(reference, 'sha256:0123456789abcdef')).toBeUndefined());
});

interface FakeContainer extends ContainerInspect {
  created: number;
}

/** An engine in memory: containers, tags → image ids, and what was pulled. */
class FakeEngine implements ContainerEngine {
  readonly containers = new Map<string, FakeContainer>();
  readonly tags = new Map<string, string>();
  readonly pulled: string[] = [];
  readonly failingPulls = new Set<string>();
  listError?: Error;
  private next = 1;

  add(name: string, reference: string, labels: Record<string, string>, running = false): string {
    const id = `${String(this.next++).padStart(4, '0')}${'c'.repeat(60)}`;
    this.containers.set(id, {
      Id: id,
      created: this.next,
      Name: `/${name}`,
      Image: this.tags.get(reference) ?? reference,
      State: { Running: running },
      Config: { Image: reference, Labels: labels, Env: ['A=1'] },
      HostConfig: { NetworkMode: 'bridge' },
      NetworkSettings: { Networks: { bridge: { Aliases: [name] } } },
    });
    return id;
  }
  byName(name: string): FakeContainer | undefined {
    return [...this.containers.values()].find((c) => c.Name === `/${name}`);
  }
  private get(id: string): FakeContainer {
    const found = this.containers.get(id);
    if (!found) throw new Error(`no such container ${id}`);
    return found;
  }

  listContainers = async (label: string): Promise<ContainerSummary[]> => {
    if (this.listError) throw this.listError;
    return [...this.containers.values()]
      .filter((c) => label in (c.Config.Labels ?? {}))
      .map((c) => ({ Id: c.Id, Names: [c.Name], Image: c.Config.Image, ImageID: c.Image, Labels: c.Config.Labels ?? null, State: c.State.Running ? 'running' : 'created' }));
  };
  inspectContainer = async (id: string) => structuredClone(this.get(id));
  inspectImage = async (reference: string) => {
    const id = this.tags.get(reference) ?? ([...this.tags.values()].includes(reference) ? reference : undefined);
    return id === undefined ? undefined : { Id: id, Config: {} };
  };
  pullImage = async (name: string, tag: string) => {
    this.pulled.push(`${name}:${tag}`);
    if (this.failingPulls.has(`${name}:${tag}`)) throw new Error('registry unreachable');
  };
  stopContainer = async (id: string) => void (this.get(id).State.Running = false);
  renameContainer = async (id: string, name: string) => void (this.get(id).Name = `/${name}`);
  createContainer = async (name: string, body: CreateContainerBody) => {
    const id = this.add(name, body.Image, body.Labels ?? {});
    Object.assign(this.get(id).Config, { Env: body.Env });
    return id;
  };
  connectNetwork = async () => undefined;
  startContainer = async (id: string) => void (this.get(id).State.Running = true);
  removeContainer = async (id: string) => void this.containers.delete(id);
}

describe('ImageUpdateChecker', () => {
  let dir: string;
  let socket: string;
  let listener: Server;
  let engine: FakeEngine;
  const lines: Record<string, unknown>[] = [];
  const log = new RuntimeLogger('debug', (line) => void lines.push(JSON.parse(line)));
  const logged = (msg: string) => lines.filter((line) => line.msg === msg);
  const checker = (intervalMs = 0, sockets = [socket]) => new ImageUpdateChecker({ sockets, intervalMs, log, connect: () => engine });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-image-updates-'));
    socket = join(dir, 'engine.sock');
    // Only the socket's existence matters here; the fake engine answers.
    listener = createServer();
    await new Promise<void>((resolve) => listener.listen(socket, resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => listener.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    lines.length = 0;
    engine = new FakeEngine();
    engine.tags.set('registry.example.com/web:1', 'sha256:v1');
  });

  it('updates containers with either label set to true and never touches the others', async () => {
    engine.add('ours', 'registry.example.com/web:1', { 'io.svc.update': 'true' });
    engine.add('watchtower', 'registry.example.com/web:1', { 'com.centurylinklabs.watchtower.enable': 'true' });
    engine.add('both', 'registry.example.com/web:1', { 'io.svc.update': 'TRUE', 'com.centurylinklabs.watchtower.enable': 'true' });
    engine.add('opted-out', 'registry.example.com/web:1', { 'io.svc.update': 'false', 'com.centurylinklabs.watchtower.enable': 'true' });
    const plain = engine.add('plain', 'registry.example.com/web:1', {});
    engine.tags.set('registry.example.com/web:1', 'sha256:v2');

    const result = await checker().checkOnce();

    expect(result).toEqual({ engine: socket, checked: ['ours', 'both', 'watchtower'], updated: ['ours', 'both', 'watchtower'], failed: [] });
    for (const name of ['ours', 'watchtower', 'both']) expect(engine.byName(name)).toMatchObject({ Image: 'sha256:v2', Config: { Env: ['A=1'] } });
    expect(engine.byName('opted-out')!.Image).toBe('sha256:v1');
    expect(engine.containers.get(plain)!.Image).toBe('sha256:v1');
    expect(engine.containers.size).toBe(5);
    // One pull per reference and check, however many containers use it.
    expect(engine.pulled).toEqual(['registry.example.com/web:1']);
    expect(logged('container updated to a newer image')).toHaveLength(3);
  });

  it('starts the replacement of a running container', async () => {
    engine.add('web', 'registry.example.com/web:1', { 'io.svc.update': 'true' }, true);
    engine.tags.set('registry.example.com/web:1', 'sha256:v2');
    await checker().checkOnce();
    expect(engine.byName('web')).toMatchObject({ Image: 'sha256:v2', State: { Running: true } });
    expect(logged('container updated to a newer image')[0]).toMatchObject({ container: 'web', from: 'sha256:v1', to: 'sha256:v2', was_running: true });
  });

  it('changes nothing when the reference still points to the image the container runs', async () => {
    const id = engine.add('web', 'registry.example.com/web:1', { 'io.svc.update': 'true' });
    expect(await checker().checkOnce()).toMatchObject({ checked: ['web'], updated: [], failed: [] });
    expect([...engine.containers.keys()]).toEqual([id]);
    expect(logged('image up to date')).toHaveLength(1);
  });

  it('leaves a container alone when its pull fails, and goes on with the others', async () => {
    engine.tags.set('registry.example.com/api:1', 'sha256:a1');
    const web = engine.add('web', 'registry.example.com/web:1', { 'io.svc.update': 'true' });
    engine.add('api', 'registry.example.com/api:1', { 'io.svc.update': 'true' });
    engine.tags.set('registry.example.com/web:1', 'sha256:v2');
    engine.tags.set('registry.example.com/api:1', 'sha256:a2');
    engine.failingPulls.add('registry.example.com/web:1');
    expect(await checker().checkOnce()).toMatchObject({ updated: ['api'], failed: ['web'] });
    expect(engine.containers.get(web)!.Image).toBe('sha256:v1');
    expect(logged('image pull failed; container left as it is')[0]).toMatchObject({ container: 'web', error: 'registry unreachable' });
  });

  it("compares a local image (podman's localhost/…) with its tag without pulling", async () => {
    engine.tags.set('localhost/app:latest', 'sha256:l1');
    engine.add('app', 'localhost/app:latest', { 'io.svc.update': 'true' });
    engine.tags.set('localhost/app:latest', 'sha256:l2');
    expect(await checker().checkOnce()).toMatchObject({ updated: ['app'] });
    expect(engine.pulled).toEqual([]);
  });

  it('skips containers pinned to a digest and leftovers of an interrupted update', async () => {
    engine.add('pinned', `registry.example.com/web@sha256:${'b'.repeat(64)}`, { 'io.svc.update': 'true' });
    engine.add('web-svc-replaced-lz4k1', 'registry.example.com/web:1', { 'io.svc.update': 'true' });
    engine.tags.set('registry.example.com/web:1', 'sha256:v2');
    expect(await checker().checkOnce()).toMatchObject({ updated: [], failed: [] });
    expect(engine.pulled).toEqual([]);
    expect(logged('left over from an interrupted image update; not updated (remove it, or rename it if it is the one to keep)')).toHaveLength(1);
  });

  it('logs an engine error and resolves', async () => {
    engine.listError = new Error('GET /containers/json: connect ECONNREFUSED');
    expect(await checker().checkOnce()).toEqual({ engine: socket, checked: [], updated: [], failed: [] });
    expect(logged('image update check failed')[0]).toMatchObject({ level: 'warn', error: 'GET /containers/json: connect ECONNREFUSED' });
  });

  it('stays idle without an engine socket, says so once, and resumes when one appears', async () => {
    const missing = join(dir, 'later.sock');
    const idle = checker(0, [missing]);
    expect(await idle.checkOnce()).toEqual({ checked: [], updated: [], failed: [] });
    await idle.checkOnce();
    expect(logged('no container engine socket; image update checks idle until one appears')).toEqual([expect.objectContaining({ looked_for: [missing] })]);
    const late = createServer();
    await new Promise<void>((resolve) => late.listen(missing, resolve));
    try {
      expect(await idle.checkOnce()).toMatchObject({ engine: missing });
      expect(logged('container engine socket found; image update checks resume')).toHaveLength(1);
    } finally {
      await new Promise((resolve) => late.close(resolve));
    }
  });

  it('checks every interval once started, and no more after stop', async () => {
    engine.add('web', 'registry.example.com/web:1', { 'io.svc.update': 'true' });
    const running = checker(20);
    running.start();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await running.stop();
    const checks = engine.pulled.length;
    expect(checks).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(engine.pulled).toHaveLength(checks);
    expect(logged('automatic image updates on')[0]).toMatchObject({ every_ms: 20, labels: ['io.svc.update=true', 'com.centurylinklabs.watchtower.enable=true'] });
  });

  it('does not check on its own when the interval is 0', async () => {
    engine.add('web', 'registry.example.com/web:1', { 'io.svc.update': 'true' });
    const off = checker(0);
    off.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await off.stop();
    expect(engine.pulled).toEqual([]);
    expect(logged('automatic image updates off')).toHaveLength(1);
  });
});
