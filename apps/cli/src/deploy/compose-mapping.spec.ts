import { execFileSync } from 'node:child_process';
import type { Job } from '@svc/common';
import { COMPOSE_HEALTH, COMPOSE_LIVENESS, sanitizeJobId } from './compose-mapping';
import { SpecDir } from '../../../../test/fixtures/deploy-specs';
import { loadDeploySpec } from './spec-loader';

let dir: SpecDir;
beforeEach(() => (dir = new SpecDir()));
afterEach(() => dir.remove());

const COMPOSE = `# the shop, as it runs on the till
name: Shop Front
x-logging: &logging
  logging: {driver: json-file, options: {max-size: 10m}}
services:
  web:
    <<: *logging
    image: nginx:1.27
    ports: ["80:80"]
    env_file: ./config/web.env
    depends_on: [api]
  api:
    <<: *logging
    image: ghcr.io/acme/shop-api:2.3
    env_file:
      - path: config/api.env
      - path: config/api.local.env
        required: false
    healthcheck: {test: [CMD, curl, -f, http://localhost:3000/health], interval: 10s}
  migrate:
    image: ghcr.io/acme/shop-api:2.3
    command: [npm, run, migrate]
    env_file: [config/api.env]
`;

const EXPECTED: Job = {
  id: 'shop-front',
  type: 'service',
  enabled: true,
  workdir: { kind: 'persistent' },
  files: {
    'compose.yaml': COMPOSE,
    '.env': 'TAG=2.3\n',
    'config/web.env': 'NGINX_HOST=shop.local\n',
    'config/api.env': 'DATABASE_URL=postgres://db/shop\n',
  },
  env: { COMPOSE_PROJECT_NAME: 'shop-front' },
  steps: [
    { name: 'pull', run: 'docker compose -f compose.yaml pull', timeout: '10m', retry: { attempts: 3, backoff: '5s' } },
    { name: 'up', run: 'docker compose -f compose.yaml up -d --remove-orphans', timeout: '5m', undo: 'docker compose -f compose.yaml down' },
  ],
  on_failure: { undo: 'none' },
  stop: { steps: [{ name: 'down', run: 'docker compose -f compose.yaml down', timeout: '2m' }] },
  observe: {
    logs: { follow: 'docker compose -f compose.yaml logs -f --no-color' },
    liveness: { every: '10s', observe: COMPOSE_LIVENESS, fails_after: 3 },
    health: { every: '10s', observe: COMPOSE_HEALTH, fails_after: 3 },
  },
  restart: { policy: 'always', backoff: '1s', max_backoff: '5m' },
  source: 'compose',
};

describe('compose mapping', () => {
  const files = {
    'shop/docker-compose.yml': COMPOSE,
    'shop/.env': 'TAG=2.3\n',
    'shop/config/web.env': 'NGINX_HOST=shop.local\n',
    'shop/config/api.env': 'DATABASE_URL=postgres://db/shop\n',
  };

  it('makes one service job driving docker compose, with the compose file and its env files inlined', async () => {
    await expect(loadDeploySpec(dir.write(files))).resolves.toEqual({ mode: 'merge', jobs: [EXPECTED] });
  });

  it.each<[string, string, string | undefined, string]>([
    ['the name option', COMPOSE, 'till-1', 'till-1'],
    ['the compose name, sanitized', COMPOSE, undefined, 'shop-front'],
    ['the directory name, sanitized, without a compose name', COMPOSE.replace('name: Shop Front\n', ''), undefined, 'shop'],
  ])('takes its id from %s', async (_, text, name, id) => {
    const request = await loadDeploySpec(dir.write({ ...files, 'shop/docker-compose.yml': text }), { name });
    expect(request.jobs[0].id).toBe(id);
    expect(request.jobs[0].env).toEqual({ COMPOSE_PROJECT_NAME: id });
  });

  it('gives docker compose a project name without dots', async () => {
    const request = await loadDeploySpec(dir.write(files), { name: 'shop.v2' });
    expect(request.jobs[0].env).toEqual({ COMPOSE_PROJECT_NAME: 'shop_v2' });
  });

  it('keeps tags docker compose knows and we do not', async () => {
    const text = 'services:\n  web:\n    image: nginx\n    ports: !reset []\n';
    await expect(loadDeploySpec(dir.write({ 'web/compose.yaml': text }))).resolves.toMatchObject({ jobs: [{ id: 'web', files: { 'compose.yaml': text } }] });
  });

  it.each<[string, string]>([
    ['My Shop!', 'my-shop'],
    ['--Edge__Box--', 'edge__box'],
    ['über.app', 'ber-app'],
    ['x'.repeat(80), 'x'.repeat(63)],
    ['!!!', ''],
  ])('sanitizeJobId(%j) = %j', (text, id) => {
    expect(sanitizeJobId(text)).toBe(id);
  });
});

/** The probes against what `docker compose ps --format` prints, run by sh with `docker` a stub. */
describe('compose probes', () => {
  const run = (command: string, psOutput: string): number => {
    const bin = dir.write({ 'bin/docker': `#!/bin/sh\nprintf '${psOutput.replace(/\n/g, '\\n')}'\n` });
    execFileSync('chmod', ['+x', bin]);
    try {
      execFileSync('sh', ['-c', command], { env: { PATH: `${dir.path('bin')}:/usr/bin:/bin` }, stdio: 'ignore' });
      return 0;
    } catch (error) {
      return (error as { status: number }).status;
    }
  };

  it.each<[string, number, number, string]>([
    ['all running', 0, 0, 'web running 0 \napi running 0 healthy\n'],
    ['a one-shot container that exited 0', 0, 0, 'web running 0 \nmigrate exited 0 \n'],
    ['a container that exited 1', 1, 1, 'web running 0 \nmigrate exited 1 \n'],
    ['a restarting container', 1, 1, 'web restarting 0 \n'],
    ['a dead container', 1, 1, 'web dead 137 \n'],
    ['no containers (project down, or docker unreachable)', 1, 1, ''],
    ['an unhealthy container', 0, 1, 'api running 0 unhealthy\n'],
    ['a container still starting', 0, 1, 'api running 0 starting\n'],
  ])('%s: liveness exits %i, health exits %i', (_, liveness, health, ps) => {
    expect(run(COMPOSE_LIVENESS, ps)).toBe(liveness);
    expect(run(COMPOSE_HEALTH, ps)).toBe(health);
  });
});
