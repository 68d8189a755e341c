import { RuntimeLogger } from '../logging/runtime-logger';
import { ContainerEngine, planRecreate, recreateContainer } from './container-recreate';
import type { ContainerInspect, CreateContainerBody, EndpointSettings } from './engine-api';

const OLD_ID = 'aaaaaaaaaaaa1111111111111111111111111111111111111111111111111111';

function container(overrides: Partial<ContainerInspect> = {}, config: Partial<ContainerInspect['Config']> = {}): ContainerInspect {
  return {
    Id: OLD_ID,
    Name: '/web',
    Image: 'sha256:old',
    State: { Running: true },
    Config: {
      Image: 'registry.example.com/web:1',
      Hostname: OLD_ID.slice(0, 12),
      Env: ['PATH=/usr/bin', 'VERSION=1', 'MODE=prod'],
      Cmd: ['serve'],
      Entrypoint: ['/entry'],
      WorkingDir: '/app',
      User: '',
      Labels: { 'io.svc.update': 'true', 'com.docker.compose.project': 'shop', 'org.opencontainers.image.version': '1' },
      Volumes: { '/data': {}, '/cache': {} },
      ExposedPorts: { '80/tcp': {}, '9000/tcp': {} },
      ...config,
    },
    HostConfig: { NetworkMode: 'shop_default', RestartPolicy: { Name: 'always' }, PortBindings: { '8080/tcp': [{ HostPort: '8080' }] } },
    NetworkSettings: {
      Networks: {
        shop_default: { Aliases: ['web', OLD_ID.slice(0, 12)], IPAMConfig: null, Links: null, IPAddress: '10.0.0.5', EndpointID: 'e1' },
        monitoring: { Aliases: ['web-metrics'], IPAMConfig: { IPv4Address: '10.9.0.9' }, MacAddress: '02:42:aa' },
      },
    },
    ...overrides,
  };
}

const IMAGE = {
  Id: 'sha256:old',
  Config: { Env: ['PATH=/usr/bin', 'VERSION=1'], Cmd: ['serve'], Entrypoint: ['/entry'], WorkingDir: '/app', Labels: { 'org.opencontainers.image.version': '1' }, Volumes: { '/data': {} }, ExposedPorts: { '80/tcp': {} } },
};

describe('planRecreate: the create request for the replacement', () => {
  it("keeps what the user set and drops what the old image supplied, so the new image's defaults apply", () => {
    const { body, name, wasRunning } = planRecreate(container(), IMAGE, 'registry.example.com/web:1');
    expect(name).toBe('web');
    expect(wasRunning).toBe(true);
    expect(body.Image).toBe('registry.example.com/web:1');
    expect(body.Env).toEqual(['MODE=prod']);
    expect(body.Labels).toEqual({ 'io.svc.update': 'true', 'com.docker.compose.project': 'shop' });
    expect(body.Volumes).toEqual({ '/cache': {} });
    expect(body.ExposedPorts).toEqual({ '9000/tcp': {}, '8080/tcp': {} });
    expect(body).not.toHaveProperty('Entrypoint');
    expect(body).not.toHaveProperty('Cmd');
    expect(body).not.toHaveProperty('WorkingDir');
    expect(body).not.toHaveProperty('Hostname');
    expect(body.HostConfig).toMatchObject({ NetworkMode: 'shop_default', RestartPolicy: { Name: 'always' } });
  });

  it('keeps a command, entrypoint and host name the user chose', () => {
    const { body } = planRecreate(container({}, { Cmd: ['serve', '--fast'], Hostname: 'shop-web' }), IMAGE, 'registry.example.com/web:1');
    expect(body.Cmd).toEqual(['serve', '--fast']);
    expect(body).not.toHaveProperty('Entrypoint');
    expect(body.Hostname).toBe('shop-web');
    expect(planRecreate(container({}, { Entrypoint: ['/other'] }), IMAGE, 'x:1').body).toMatchObject({ Entrypoint: ['/other'], Cmd: ['serve'] });
  });

  it('keeps everything when the old image is gone', () => {
    const { body } = planRecreate(container(), undefined, 'registry.example.com/web:1');
    expect(body.Env).toEqual(['PATH=/usr/bin', 'VERSION=1', 'MODE=prod']);
    expect(body.Labels?.['org.opencontainers.image.version']).toBe('1');
  });

  it('creates on the first network with its aliases (not the old id), connects the others after, and drops engine-assigned fields', () => {
    const plan = planRecreate(container(), IMAGE, 'x:1');
    expect(plan.body.NetworkingConfig).toEqual({ EndpointsConfig: { shop_default: { Aliases: ['web'], IPAMConfig: null, Links: null, DriverOpts: null } } });
    expect(plan.extraNetworks).toEqual([['monitoring', { Aliases: ['web-metrics'], IPAMConfig: { IPv4Address: '10.9.0.9' }, Links: null, DriverOpts: null }]]);
  });

  it.each(['host', 'none', 'container:db'])('leaves networking to network mode %s', (mode) => {
    const plan = planRecreate(container({ HostConfig: { NetworkMode: mode } }, { Hostname: 'web' }), IMAGE, 'x:1');
    expect(plan.body).not.toHaveProperty('NetworkingConfig');
    expect(plan.extraNetworks).toEqual([]);
    if (mode.startsWith('container:')) expect(plan.body).not.toHaveProperty('Hostname');
  });

  it("rewrites inspect's links and podman's ulimit names and device modes into what create accepts", () => {
    const host = {
      NetworkMode: 'bridge',
      Links: ['/db:/web/database'],
      Ulimits: [{ Name: 'RLIMIT_NOFILE', Soft: 1024, Hard: 2048 }],
      Devices: [
        { PathOnHost: '/dev/ttyUSB0', PathInContainer: '/dev/ttyUSB0', CgroupPermissions: '' },
        { PathOnHost: '/dev/i2c-1', PathInContainer: '/dev/i2c-1', CgroupPermissions: 'r' },
      ],
    };
    expect(planRecreate(container({ HostConfig: host }), IMAGE, 'x:1').body.HostConfig).toMatchObject({
      Links: ['db:database'],
      Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 2048 }],
      Devices: [expect.objectContaining({ CgroupPermissions: 'rwm' }), expect.objectContaining({ CgroupPermissions: 'r' })],
    });
  });

  it('respects the stop timeout the container was created with, else 10 s', () => {
    expect(planRecreate(container({}, { StopTimeout: 45 }), IMAGE, 'x:1').stopTimeoutSecs).toBe(45);
    expect(planRecreate(container({}, { StopTimeout: 0 }), IMAGE, 'x:1').stopTimeoutSecs).toBe(10);
    expect(planRecreate(container(), IMAGE, 'x:1').stopTimeoutSecs).toBe(10);
  });
});

/** Records every call; `failOn` makes one call (by name and, optionally, target) reject. */
class RecordingEngine implements ContainerEngine {
  readonly calls: string[] = [];
  constructor(private readonly failOn: Partial<Record<string, string>> = {}) {}
  private call(what: string, target: string): Promise<void> {
    this.calls.push(`${what} ${target}`);
    const failing = this.failOn[what];
    return failing !== undefined && (failing === '' || failing === target) ? Promise.reject(new Error(`${what} refused`)) : Promise.resolve();
  }
  listContainers = async () => [];
  inspectContainer = async (): Promise<ContainerInspect> => container();
  inspectImage = async () => undefined;
  pullImage = async () => undefined;
  stopContainer = (id: string, secs: number) => this.call('stop', `${id.slice(0, 4)} t=${secs}`);
  renameContainer = (id: string, name: string) => this.call('rename', `${id.slice(0, 4)} ${name}`);
  createContainer = async (name: string, body: CreateContainerBody) => (await this.call('create', `${name} ${body.Image}`), 'new1');
  connectNetwork = (network: string, id: string, _endpoint: EndpointSettings) => this.call('connect', `${network} ${id}`);
  startContainer = (id: string) => this.call('start', id.slice(0, 4));
  removeContainer = (id: string) => this.call('remove', id.slice(0, 4));
}

describe('recreateContainer', () => {
  const lines: Record<string, unknown>[] = [];
  const log = new RuntimeLogger('debug', (line) => void lines.push(JSON.parse(line)));
  const plan = () => planRecreate(container({}, { StopTimeout: 30 }), IMAGE, 'registry.example.com/web:2');
  const now = () => 36 ** 3; // aside name suffix "1000"
  beforeEach(() => (lines.length = 0));

  it('a running container: stopped within its timeout, set aside, replaced, started, the old one removed', async () => {
    const engine = new RecordingEngine();
    expect(await recreateContainer(engine, OLD_ID, plan(), log, now)).toEqual({ updated: true, id: 'new1' });
    expect(engine.calls).toEqual([
      'stop aaaa t=30',
      'rename aaaa web-svc-replaced-1000',
      'create web registry.example.com/web:2',
      'connect monitoring new1',
      'start new1',
      'remove aaaa',
    ]);
  });

  it('a stopped container: replaced and left stopped', async () => {
    const engine = new RecordingEngine();
    const stopped = planRecreate(container({ State: { Running: false } }), IMAGE, 'x:2');
    await recreateContainer(engine, OLD_ID, stopped, log, now);
    expect(engine.calls).toEqual(['rename aaaa web-svc-replaced-1000', 'create web x:2', 'connect monitoring new1', 'remove aaaa']);
  });

  it('the new container will not start: it is removed, the old one gets its name back and runs again', async () => {
    const engine = new RecordingEngine({ start: 'new1' });
    const outcome = await recreateContainer(engine, OLD_ID, plan(), log, now);
    expect(outcome).toEqual({ updated: false, reason: 'could not set up or start the new container: start refused' });
    expect(engine.calls.slice(4)).toEqual(['start new1', 'remove new1', 'rename aaaa web', 'start aaaa']);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'container update failed; old container restored', container: 'web' }));
  });

  it('the new container cannot be created: the old one gets its name back and runs again', async () => {
    const engine = new RecordingEngine({ create: '' });
    const outcome = await recreateContainer(engine, OLD_ID, plan(), log, now);
    expect(outcome).toMatchObject({ updated: false, reason: 'could not create the new container: create refused' });
    expect(engine.calls.slice(2)).toEqual(['create web registry.example.com/web:2', 'rename aaaa web', 'start aaaa']);
  });

  it('a network cannot be connected: treated like a failed start', async () => {
    const engine = new RecordingEngine({ connect: '' });
    await recreateContainer(engine, OLD_ID, plan(), log, now);
    expect(engine.calls.slice(3)).toEqual(['connect monitoring new1', 'remove new1', 'rename aaaa web', 'start aaaa']);
  });

  it('the old container will not stop: nothing is created, it is left running', async () => {
    const engine = new RecordingEngine({ stop: '' });
    expect(await recreateContainer(engine, OLD_ID, plan(), log, now)).toMatchObject({ updated: false, reason: expect.stringContaining('stop refused') });
    expect(engine.calls).toEqual(['stop aaaa t=30', 'start aaaa']);
  });

  it('restoring fails too: every step is still tried and the log says to fix it by hand', async () => {
    const engine = new RecordingEngine({ start: '', rename: 'aaaa web' });
    await recreateContainer(engine, OLD_ID, plan(), log, now);
    expect(engine.calls.slice(4)).toEqual(['start new1', 'remove new1', 'rename aaaa web', 'start aaaa']);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'could not restore the old container: fix it by hand', old_container: 'web-svc-replaced-1000', problems: ['rename the old container back: rename refused', 'start the old container: start refused'] }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'container update failed; restoring the old container failed too' }));
  });

  it('the old container cannot be removed: still updated, with a warning naming it', async () => {
    const engine = new RecordingEngine({ remove: '' });
    expect(await recreateContainer(engine, OLD_ID, plan(), log, now)).toEqual({ updated: true, id: 'new1' });
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', old_container: 'web-svc-replaced-1000' }));
  });
});
