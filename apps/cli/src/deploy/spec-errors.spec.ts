import { symlinkSync, writeFileSync } from 'node:fs';
import { DEPLOY_LIMITS, InvalidInputError } from '@svc/common';
import { SpecDir } from '../../../../test/fixtures/deploy-specs';
import { loadDeploySpec, type LoadDeploySpecOptions } from './spec-loader';

let dir: SpecDir;
beforeEach(() => (dir = new SpecDir()));
afterEach(() => dir.remove());

/** Loads `files` (the first is the spec) and answers the error message, with the directory shown as `<dir>`. */
async function failure(files: Record<string, string>, options: LoadDeploySpecOptions = {}): Promise<string> {
  const file = dir.write(files);
  const error = await loadDeploySpec(file, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidInputError);
  return (error as Error).message.split(dir.root).join('<dir>');
}

const DEPLOYMENT = (steps: string) => `name: shop
jobs:
  - id: web
    steps:
      - name: serve
        run: python3 -m http.server
  - id: worker
    steps:
${steps}
`;

const JOB = (extra: string) => `id: web\n${extra}\nsteps: [{name: serve, run: x}]\n`;

describe('loadDeploySpec: errors name the file, the line and the field', () => {
  it.each<[string, Record<string, string>, LoadDeploySpecOptions, string]>([
    [
      'a bad duration',
      { 'deploy.yaml': DEPLOYMENT('      - name: work\n        run: ./work\n        timeout: 10 minutes') },
      {},
      '<dir>/deploy.yaml:11: jobs[1].steps[0].timeout: "10 minutes" is not a duration (Ns, Nm or Nh)',
    ],
    ['a duration as a number', { 'job.yaml': 'id: web\nsteps:\n  - {name: s, run: x, timeout: 30}\n' }, {}, '<dir>/job.yaml:3: steps[0].timeout: 30 is not a duration (Ns, Nm or Nh)'],
    ['a wrong type', { 'job.yaml': JOB('enabled: "yes"') }, {}, '<dir>/job.yaml:2: enabled: must be true or false, not "yes"'],
    ['a step that is not a mapping', { 'job.yaml': 'id: web\nsteps:\n  - ./run.sh\n' }, {}, '<dir>/job.yaml:3: steps[0]: must be a mapping, not "./run.sh"'],
    ['an env value left empty', { 'job.yaml': JOB('env:\n  A:') }, {}, '<dir>/job.yaml:3: env.A: null is not a string (without NUL characters)'],
    ['a wrong type of a section', { 'job.yaml': JOB('env: [A=1]') }, {}, '<dir>/job.yaml:2: env: must be a mapping, not a list'],
    [
      'an unknown job field',
      { 'deploy.yaml': DEPLOYMENT('      - name: work\n        run: ./work').replace('  - id: worker\n', '  - id: worker\n    replicas: 2\n') },
      {},
      '<dir>/deploy.yaml:8: jobs[1].replicas: unknown field (a job has: id, type, enabled, workdir, files, env, steps, on_failure, stop, observe, restart)',
    ],
    [
      'an unknown step field',
      { 'deploy.yaml': DEPLOYMENT('      - name: work\n        run: ./work\n        retries: 3') },
      {},
      '<dir>/deploy.yaml:11: jobs[1].steps[0].retries: unknown field (expected one of: name, run, timeout, retry, undo)',
    ],
    ['an unknown document field', { 'deploy.yaml': `version: 2\n${DEPLOYMENT('      - {name: w, run: x}')}` }, {}, '<dir>/deploy.yaml:1: version: unknown field (a deployment document has: name, jobs, rollback)'],
    ['a __proto__ key', { 'job.yaml': JOB('__proto__: {enabled: false}') }, {}, '<dir>/job.yaml:2: __proto__: unknown field (a job has: id, type, enabled, workdir, files, env, steps, on_failure, stop, observe, restart)'],
    ['a missing step name', { 'deploy.yaml': DEPLOYMENT('      - run: ./work') }, {}, '<dir>/deploy.yaml:9: jobs[1].steps[0].name: required field missing'],
    ['a missing job id', { 'job.yaml': 'steps: [{name: s, run: x}]\n' }, {}, '<dir>/job.yaml:1: id: required field missing'],
    ['a service without steps', { 'job.yaml': 'id: web\n' }, {}, '<dir>/job.yaml:1: steps: must have at least one step (a service or job runs its steps)'],
    [
      'an observe job that observes nothing',
      { 'job.yaml': 'id: web\ntype: observe\n' },
      {},
      '<dir>/job.yaml:1: observe: must have at least one of logs, liveness or health (an observe job only observes)',
    ],
    ['a bad enum', { 'job.yaml': JOB('type: daemon') }, {}, '<dir>/job.yaml:2: type: "daemon" is not one of service, job, observe'],
    [
      'a bad restart policy',
      { 'job.yaml': JOB('restart: sometimes') },
      {},
      '<dir>/job.yaml:2: restart: "sometimes" is not a restart policy (never, on_failure, always, or {policy, backoff, max_backoff})',
    ],
    ['a bad command', { 'job.yaml': 'id: web\nsteps:\n  - name: s\n    run: []\n' }, {}, '<dir>/job.yaml:4: steps[0].run: must be a command: a string (run with sh -lc) or a non-empty list of strings (argv)'],
    ['an out-of-range number', { 'job.yaml': 'id: web\nsteps:\n  - {name: s, run: x, retry: {attempts: 1000}}\n' }, {}, '<dir>/job.yaml:3: steps[0].retry.attempts: must be <= 100, not 1000'],
    ['a bad env name', { 'job.yaml': JOB('env:\n  MY-VAR: 1') }, {}, '<dir>/job.yaml:3: env.MY-VAR: "MY-VAR" is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)'],
    ['a control character in an id', { 'job.yaml': 'id: "web\\e[2J"\nsteps: [{name: s, run: x}]\n' }, {}, '<dir>/job.yaml:1: id: "web\\u001b[2J" is not an id (1-63 of a-z, 0-9, "_", "." and "-", starting with a letter or digit)'],
    [
      'duplicate job ids',
      { 'deploy.yaml': DEPLOYMENT('      - {name: w, run: x}').replace('id: worker', 'id: web') },
      {},
      '<dir>/deploy.yaml:7: jobs[1].id: duplicate job id "web" (also jobs[0])',
    ],
    ['duplicate step names', { 'job.yaml': 'id: web\nsteps:\n  - {name: s, run: x}\n  - {name: s, run: y}\n' }, {}, '<dir>/job.yaml:4: steps[1].name: duplicate step name "s" (also steps[0])'],
    ['duplicate YAML keys', { 'job.yaml': 'id: web\nid: api\n' }, {}, '<dir>/job.yaml:2: Map keys must be unique'],
    ['bad YAML', { 'job.yaml': 'id: web\nsteps: [{name: s, run: x}\nenv: {}\n' }, {}, expect.stringMatching(/^<dir>\/job\.yaml:[23]: /) as unknown as string],
    ['several documents', { 'job.yaml': 'id: web\n---\nid: api\n' }, {}, expect.stringMatching(/^<dir>\/job\.yaml:2: Source contains multiple documents/) as unknown as string],
    ['an unknown tag', { 'job.yaml': JOB('enabled: !maybe yes') }, {}, expect.stringMatching(/^<dir>\/job\.yaml:2: Unresolved tag: !maybe/) as unknown as string],
    ['an empty file', { 'job.yaml': '' }, {}, '<dir>/job.yaml:1: must be a mapping (a compose file, a run-spec job or a deployment document), not an empty document'],
    ['a list at the root', { 'job.yaml': '- id: web\n' }, {}, '<dir>/job.yaml:1: must be a mapping (a compose file, a run-spec job or a deployment document), not a list or a scalar'],
    ['a missing inlined file', { 'job.yaml': JOB('files:\n  app.py: ./src/app.py') }, {}, '<dir>/job.yaml:3: files["app.py"]: "./src/app.py" does not exist (looked for <dir>/src/app.py)'],
    ['an inlined file outside the spec directory', { 'job.yaml': JOB('files:\n  key: ../../etc/passwd') }, {}, '<dir>/job.yaml:3: files.key: "../../etc/passwd" is outside the spec file\'s directory'],
    ['an absolute inlined file', { 'job.yaml': JOB('files:\n  key: /etc/passwd') }, {}, '<dir>/job.yaml:3: files.key: "/etc/passwd" is absolute; give a path relative to the spec file\'s directory'],
    ['a directory as an inlined file', { 'job.yaml': JOB('files:\n  conf: ./conf'), 'conf/a': 'x' }, {}, '<dir>/job.yaml:3: files.conf: "./conf" is not a regular file'],
    ['a bad files entry', { 'job.yaml': JOB('files:\n  conf: {path: a}') }, {}, '<dir>/job.yaml:3: files.conf: must be a path to a file (a string) or {content: "..."}'],
    ['a file name with ..', { 'job.yaml': JOB('files:\n  ../x: {content: a}') }, {}, '<dir>/job.yaml:3: files["../x"]: "../x" is not a file name relative to the workdir (letters, digits, "_.@+-" and "/", no "." or ".." segments)'],
    ['deployment without jobs', { 'deploy.yaml': 'name: x\n' }, { spec_type: 'deployment' }, '<dir>/deploy.yaml:1: jobs: required field missing (a deployment document lists its jobs under jobs:)'],
    ['rollback in a merged list of jobs', { 'deploy.yaml': `rollback: {}\n${DEPLOYMENT('      - {name: w, run: x}')}` }, { spec_type: 'runspec' }, expect.stringMatching(/^<dir>\/deploy\.yaml:1: rollback: only a whole deployment document/) as unknown as string],
    [
      'a bad rollback policy',
      { 'deploy.yaml': `rollback:\n  on_health_failure: some\n${DEPLOYMENT('      - {name: w, run: x}')}` },
      {},
      '<dir>/deploy.yaml:2: rollback.on_health_failure: must be never, any, all or {consecutive: N}',
    ],
    ['a root key that is no job field', { 'job.yaml': 'x: &p {every: soon}\n' }, {}, '<dir>/job.yaml:1: x: unknown field (a job has: id, type, enabled, workdir, files, env, steps, on_failure, stop, observe, restart)'],
    ['a bad name option for a job', { 'job.yaml': JOB('') }, { name: 'My Job' }, 'name: "My Job" is not a job id (1-63 of a-z, 0-9, "_", "." and "-", starting with a letter or digit); it names the job this file becomes'],
    ['a control character in an unknown key, escaped', { 'job.yaml': JOB('"x\\u202e\\u0085": 1') }, {}, expect.stringMatching(/^<dir>\/job\.yaml:2: \["x\\u202e\\u0085"\]: unknown field/) as unknown as string],
    ['an escape sequence in the name option, escaped', { 'job.yaml': JOB('') }, { name: 'web\u001b[2J' }, expect.stringMatching(/^name: "web\\u001b\[2J" is not a job id/) as unknown as string],
    ['a bad deployment_id option', { 'job.yaml': JOB('') }, { deployment_id: '../x' }, 'deployment_id: "../x" is not a deployment id'],
    ['a bad spec_type', { 'job.yaml': JOB('') }, { spec_type: 'helm' as 'auto' }, 'spec_type: "helm" is not one of auto, compose, runspec, deployment'],
    ['a missing spec file', { 'other.yaml': '' }, {}, expect.stringMatching(/other\.yaml/) as unknown as string],
  ])('%s', async (_, files, options, message) => {
    expect(await failure(files, options)).toEqual(message);
  });

  it('names the line of a merged field', async () => {
    const yaml = 'id: web\nobserve:\n  liveness: &probe {every: soon, observe: "true"}\n  health: {<<: *probe}\nsteps: [{name: s, run: x}]\n';
    expect(await failure({ 'job.yaml': yaml })).toBe('<dir>/job.yaml:3: observe.liveness.every: "soon" is not a duration (Ns, Nm or Nh)');
  });

  it('refuses an alias bomb', async () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]'];
    expect(await failure({ 'job.yaml': bomb.join('\n') })).toBe('<dir>/job.yaml: more than 100 alias expansions, refused as a possible alias bomb');
  });

  it('refuses YAML nested too deeply', async () => {
    expect(await failure({ 'job.yaml': `id: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n` })).toMatch(/^<dir>\/job\.yaml:1: nested too deeply$/);
  });

  it('refuses a spec file over the size limit without reading it', async () => {
    const file = dir.path('big.yaml');
    writeFileSync(file, Buffer.alloc(DEPLOY_LIMITS.maxSpecFileBytes + 1, 0x20));
    await expect(loadDeploySpec(file)).rejects.toThrow(`${file}: 8388609 bytes, more than the 8388608 bytes a spec file may have`);
  });

  it('refuses a symbolic link that leads out of the spec directory', async () => {
    const file = dir.write({ 'app/job.yaml': JOB('files:\n  key: ./key'), 'secret/id': 'private' });
    symlinkSync(dir.path('secret/id'), dir.path('app/key'));
    await expect(loadDeploySpec(file)).rejects.toThrow(`${file}:3: files.key: "./key" links outside the spec file's directory`);
  });

  it('refuses a file that is not UTF-8 text', async () => {
    const file = dir.write({ 'job.yaml': JOB('files:\n  blob: ./blob.bin') });
    writeFileSync(dir.path('blob.bin'), Buffer.from([0xff, 0xfe, 0x00]));
    await expect(loadDeploySpec(file)).rejects.toThrow(`${file}:3: files.blob: "./blob.bin" is not UTF-8 text (files are sent as text)`);
  });

  it('refuses inlined files over 8 MiB in all, before reading them all', async () => {
    const big = 'x'.repeat(DEPLOY_LIMITS.maxFileBytes);
    const files: Record<string, string> = { 'job.yaml': JOB(`files:\n${Array.from({ length: 10 }, (_, i) => `  f${i}: ./f${i}`).join('\n')}`) };
    for (let i = 0; i < 10; i++) files[`f${i}`] = big;
    expect(await failure(files)).toMatch(/^<dir>\/job\.yaml:11: files\.f8: the files referenced so far come to 9437184 bytes, more than the 8388608 bytes/);
  });
});

describe('loadDeploySpec: compose errors', () => {
  it.each<[string, Record<string, string>, LoadDeploySpecOptions, string]>([
    ['no services', { 'compose.yaml': 'name: x\n' }, { spec_type: 'compose' }, '<dir>/compose.yaml:1: services: a compose file needs a mapping of services'],
    ['a missing env file', { 'compose.yaml': 'services:\n  web:\n    image: nginx\n    env_file: web.env\n' }, {}, '<dir>/compose.yaml:4: services.web.env_file: "web.env" does not exist (looked for <dir>/web.env)'],
    [
      'an env file outside its directory',
      { 'compose.yaml': 'services:\n  web:\n    image: nginx\n    env_file: [../web.env]\n' },
      {},
      '<dir>/compose.yaml:4: services.web.env_file[0]: "../web.env" is outside the compose file\'s directory; only files next to it or below are sent',
    ],
    [
      'a build without an image',
      { 'compose.yaml': 'services:\n  web:\n    build: .\n' },
      {},
      '<dir>/compose.yaml:3: services.web.build: the build context is not sent and images are not built on the device; push the image and name it with image:',
    ],
    ['an include', { 'compose.yaml': 'include: [other.yaml]\nservices: {web: {image: nginx}}\n' }, {}, '<dir>/compose.yaml:1: include: references other compose files, which are not sent; put everything in one file'],
    ['a bad name option', { 'compose.yaml': 'services: {web: {image: nginx}}\n' }, { name: 'Web' }, 'name: "Web" is not a job id (1-63 of a-z, 0-9, "_", "." and "-", starting with a letter or digit); it names the job this file becomes'],
  ])('%s', async (_, files, options, message) => {
    expect(await failure(files, options)).toEqual(message);
  });
});
