/**
 * Automatic image updates against a real engine: Debian's podman answering the Docker API
 * (test/fixtures/container-engine.ts). No registry is reachable and containers cannot start in
 * this sandbox, so images are imported from tarballs made here (as `localhost/…`, which the
 * checker compares with the local tag instead of pulling), the containers are created but never
 * started, and the "was running → started again" path is covered by the unit specs with a fake
 * engine (apps/runtime/src/deployments/*.spec.ts) instead.
 * Not on useFleet: no server; the runtime's image checker against a real engine.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerInspect, EngineApi, HostConfig } from '../apps/runtime/src/deployments/engine-api';
import { ImageUpdateChecker } from '../apps/runtime/src/deployments/image-updates';
import { RuntimeLogger } from '../apps/runtime/src/logging/runtime-logger';
import { PodmanService, startPodmanService } from './fixtures/container-engine';
import { startRuntimeProcess } from './fixtures/runtime-process';

const LOCAL = 'localhost/svc-update-test';
/** A registry name that cannot resolve (RFC 2606), so its pull fails as an unreachable registry's does. */
const REMOTE = 'registry.invalid/svc/update-test';
/** Podman keeps network definitions machine-wide (not in the test's storage): a name of our own, removed afterwards. */
const NETWORK = `svc-update-test-${process.pid}`;
const COMPOSE_LABELS = {
  'com.docker.compose.project': 'shop',
  'com.docker.compose.service': 'web',
  'com.docker.compose.container-number': '1',
  'com.docker.compose.config-hash': 'f'.repeat(64),
};

/** Options a device's containers typically carry; all must survive the round trip inspect → create. */
const RICH_HOST_CONFIG = (dir: string): HostConfig => ({
  Binds: [`${join(dir, 'ours-data')}:/data:ro`],
  PortBindings: { '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '18080' }] },
  Tmpfs: { '/run/cache': 'size=1m' },
  CapAdd: ['NET_ADMIN'],
  ExtraHosts: ['gateway.local:10.0.0.1'],
  Dns: ['10.0.0.53'],
  Memory: 64 * 1024 * 1024,
  Devices: [{ PathOnHost: '/dev/null', PathInContainer: '/dev/sensor', CgroupPermissions: 'rwm' }],
  LogConfig: { Type: 'k8s-file', Config: {} },
});

describe('automatic image updates (podman engine)', () => {
  let dir: string;
  let engine: PodmanService;
  let api: EngineApi;
  const lines: Record<string, unknown>[] = [];
  const log = new RuntimeLogger('debug', (line) => {
    lines.push(JSON.parse(line));
    if (process.env.TEST_LOG === 'runtime') process.stderr.write(line);
  });
  let checker: ImageUpdateChecker;
  const versions: Record<string, string> = {};
  const before: Record<string, ContainerInspect> = {};

  /** Imports a one-file image (`/version` holding `content`) as repo:tag; answers its image id. */
  async function importImage(repo: string, tag: string, content: string): Promise<string> {
    const src = join(dir, `image-${content}`);
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'version'), content);
    const tarball = execFileSync('tar', ['-C', src, '-cf', '-', 'version']);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const query = new URLSearchParams({ fromSrc: '-', repo, tag });
      request({ socketPath: engine.socket, method: 'POST', path: `/images/create?${query}`, headers: { 'content-type': 'application/x-tar' } }, (res) => {
        res.resume().once('end', () => resolve(res.statusCode));
      })
        .once('error', reject)
        .end(tarball);
    });
    expect(status).toBe(200);
    return (await api.inspectImage(`${repo}:${tag}`))!.Id;
  }

  async function tag(image: string, repo: string, tagName: string): Promise<void> {
    await api.json({ method: 'POST', path: `/images/${image}/tag`, query: { repo, tag: tagName } });
  }

  async function create(name: string, image: string, labels: Record<string, string>, networks: Record<string, { Aliases: string[] }> = {}, host: HostConfig = {}): Promise<string> {
    return api.createContainer(name, {
      Image: image,
      Cmd: ['/version'],
      Env: ['GREETING=hello'],
      Labels: labels,
      StopTimeout: 20,
      HostConfig: { RestartPolicy: { Name: 'unless-stopped', MaximumRetryCount: 0 }, ...host },
      ...(Object.keys(networks).length > 0 ? { NetworkingConfig: { EndpointsConfig: networks } } : {}),
    });
  }

  const inspect = (nameOrId: string) => api.inspectContainer(nameOrId);
  const allContainers = () => api.json<{ Id: string; Names: string[] }[]>({ method: 'GET', path: '/containers/json', query: { all: 'true' } });
  const gone = async (id: string) => !(await allContainers()).some((c) => c.Id === id);
  const logged = (msg: string) => lines.filter((line) => line.msg === msg);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-image-updates-e2e-'));
    engine = await startPodmanService(dir);
    api = new EngineApi(engine.socket);
    checker = new ImageUpdateChecker({ sockets: [engine.socket], intervalMs: 0, log });
    versions.v1 = await importImage(LOCAL, 'latest', 'v1');
    await tag(versions.v1, REMOTE, '1');
    await api.json({ method: 'POST', path: '/networks/create', body: { Name: NETWORK } });
    await create('watched', `${LOCAL}:latest`, { 'com.centurylinklabs.watchtower.enable': 'true', ...COMPOSE_LABELS });
    mkdirSync(join(dir, 'ours-data'));
    await create('ours', `${LOCAL}:latest`, { 'io.svc.update': 'true' }, { podman: { Aliases: ['ours-main'] }, [NETWORK]: { Aliases: ['ours-extra'] } }, RICH_HOST_CONFIG(dir));
    await create('plain', `${LOCAL}:latest`, {});
    await create('remote', `${REMOTE}:1`, { 'io.svc.update': 'true' });
    for (const name of ['watched', 'ours', 'plain', 'remote']) before[name] = await inspect(name);
  });
  afterAll(async () => {
    await checker?.stop();
    if (api) {
      for (const container of await allContainers()) await api.removeContainer(container.Id);
      await api.json({ method: 'DELETE', path: `/networks/${NETWORK}` }).catch(() => undefined);
    }
    await engine?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds nothing to do while the tags still point to the images the containers run', async () => {
    const result = await checker.checkOnce();
    // A pull that fails is a failure even when nothing is new: the check could not tell.
    expect({ ...result, checked: result.checked.sort() }).toEqual({ engine: engine.socket, checked: ['ours', 'remote', 'watched'], updated: [], failed: ['remote'] });
    for (const name of ['watched', 'ours', 'plain', 'remote']) expect((await inspect(name)).Id).toBe(before[name].Id);
  });

  it('recreates the labelled containers on the new image under the same name, labels and config, and removes the old ones', async () => {
    versions.v2 = await importImage(LOCAL, 'latest', 'v2');
    expect(versions.v2).not.toBe(versions.v1);

    const result = await checker.checkOnce();

    expect(result.updated.sort()).toEqual(['ours', 'watched']);
    for (const name of ['watched', 'ours']) {
      const now = await inspect(name);
      const old = before[name];
      expect(now.Id).not.toBe(old.Id);
      expect(now.Image).toBe(versions.v2);
      expect(now.Name).toBe(`/${name}`);
      expect(now.Config.Image).toBe(`${LOCAL}:latest`);
      expect(now.Config.Labels).toEqual(old.Config.Labels);
      expect(now.Config.Env!.sort()).toEqual(old.Config.Env!.sort());
      expect(now.Config.Cmd).toEqual(['/version']);
      expect(now.Config.StopTimeout).toBe(20);
      expect(now.HostConfig.RestartPolicy).toEqual(old.HostConfig.RestartPolicy);
      expect(now.State.Running).toBe(false);
      expect(await gone(old.Id)).toBe(true);
    }
    // docker compose finds its containers by these labels.
    expect((await inspect('watched')).Config.Labels).toMatchObject(COMPOSE_LABELS);
    const ours = await inspect('ours');
    for (const field of ['Binds', 'PortBindings', 'Tmpfs', 'CapAdd', 'ExtraHosts', 'Dns', 'Memory', 'LogConfig'] as const) {
      expect([field, before.ours.HostConfig[field]]).toEqual([field, expect.anything()]);
      expect([field, ours.HostConfig[field]]).toEqual([field, before.ours.HostConfig[field]]);
    }
    expect(ours.HostConfig.Devices).toEqual([expect.objectContaining({ PathInContainer: '/dev/sensor' })]);
    const networks = ours.NetworkSettings!.Networks!;
    expect(Object.keys(networks).sort()).toEqual(['podman', NETWORK]);
    expect(networks.podman.Aliases).toContain('ours-main');
    expect(networks[NETWORK].Aliases).toContain('ours-extra');
    expect(networks.podman.Aliases).not.toContain(before.ours.Id.slice(0, 12));
    expect(logged('container updated to a newer image')).toContainEqual(expect.objectContaining({ container: 'watched', from: versions.v1, to: versions.v2, was_running: false }));
  });

  it('never touches a container without the label', async () => {
    const plain = await inspect('plain');
    expect(plain.Id).toBe(before.plain.Id);
    expect(plain.Image).toBe(versions.v1);
  });

  it('leaves a container alone when its image cannot be pulled, even though its local tag moved', async () => {
    await tag(versions.v2, REMOTE, '1');
    const result = await checker.checkOnce();
    expect(result.failed).toEqual(['remote']);
    const remote = await inspect('remote');
    expect(remote.Id).toBe(before.remote.Id);
    expect(remote.Image).toBe(versions.v1);
    expect(logged('image pull failed; container left as it is').at(-1)).toMatchObject({ container: 'remote', image: `${REMOTE}:1`, error: expect.stringContaining('registry.invalid') });
  });

  it('changes nothing on a check with nothing new', async () => {
    const ids = await Promise.all(['watched', 'ours', 'plain', 'remote'].map(async (name) => (await inspect(name)).Id));
    expect(await checker.checkOnce()).toMatchObject({ updated: [], failed: ['remote'] });
    expect(await Promise.all(['watched', 'ours', 'plain', 'remote'].map(async (name) => (await inspect(name)).Id))).toEqual(ids);
  });

  it('puts the old container back, name and all, when its replacement cannot be created', async () => {
    // The engine, behind a proxy that refuses to create "ours": the real engine does the rest.
    const proxySocket = join(dir, 'faulty.sock');
    const proxy = createServer((req, res) => {
      if (req.method === 'POST' && req.url?.startsWith('/containers/create?name=ours')) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'injected: out of disk space' }));
        return;
      }
      const forwarded = request({ socketPath: engine.socket, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        answer.on('error', () => res.destroy());
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      // A checker that gives up on a request resets it: no uncaught error in the test process.
      forwarded.on('error', () => res.destroy());
      req.on('error', () => forwarded.destroy());
      req.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(proxySocket, resolve));
    try {
      const ours = await inspect('ours');
      const watched = await inspect('watched');
      versions.v2b = await importImage(LOCAL, 'latest', 'v2b');

      const result = await new ImageUpdateChecker({ sockets: [proxySocket], intervalMs: 0, log }).checkOnce();

      expect(result).toMatchObject({ updated: ['watched'], failed: expect.arrayContaining(['ours', 'remote']) });
      expect(await inspect('ours')).toMatchObject({ Id: ours.Id, Name: '/ours', Image: ours.Image });
      expect((await inspect('watched')).Id).not.toBe(watched.Id);
      expect(logged('container update failed; old container restored').at(-1)).toMatchObject({ container: 'ours', reason: 'could not create the new container: POST /containers/create: 500 injected: out of disk space' });
      const names = (await allContainers()).flatMap((c) => c.Names);
      expect(names.filter((name) => name.includes('ours'))).toEqual(['/ours']);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('stays idle without an engine socket, logging it once, and never throws', async () => {
    const idle = new ImageUpdateChecker({ sockets: [join(dir, 'no-engine.sock')], intervalMs: 0, log });
    expect(await idle.checkOnce()).toEqual({ checked: [], updated: [], failed: [] });
    expect(await idle.checkOnce()).toEqual({ checked: [], updated: [], failed: [] });
    expect(logged('no container engine socket; image update checks idle until one appears')).toHaveLength(1);
  });

  it('runs in a real runtime on --image-update-interval, whether or not the server is reachable', async () => {
    const home = join(dir, 'runtime-home');
    const runtime = startRuntimeProcess(['run', '--docker-socket', engine.socket, '--image-update-interval', '300ms', '--tunnel', '127.0.0.1:9'], {
      HOME: home,
      SVC_CONFIG_DIR: join(home, 'svc'),
      SVC_SERVER_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: `svc_${'k'.repeat(40)}`,
    });
    try {
      expect(await runtime.waitForLog('automatic image updates on')).toMatchObject({ every_ms: 300 });
      versions.v3 = await importImage(LOCAL, 'latest', 'v3');
      // The update to v3: its first check may already have updated a container to the image an earlier test left as latest.
      const updated = await runtime.waitForLine('stderr', new RegExp(`^(?=.*"container updated to a newer image")(?=.*"to":"${versions.v3}")`));
      expect(JSON.parse(updated.input!)).toMatchObject({ msg: 'container updated to a newer image', to: versions.v3 });
      // The end of that check, not of an earlier one (a check every 300 ms logs its end, at debug level when nothing changed).
      await runtime.waitForLog('image update check done', runtime.stderr.indexOf(updated.input!) + 1);
    } finally {
      runtime.kill('SIGTERM');
    }
    expect(await runtime.exited).toEqual({ code: 0, signal: null });
    for (const name of ['watched', 'ours']) expect((await inspect(name)).Image).toBe(versions.v3);
    expect((await inspect('plain')).Image).toBe(versions.v1);
  });
});
