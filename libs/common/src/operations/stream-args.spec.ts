import Ajv from 'ajv';
import { inputProblems, inputSchema } from './input-schema';
import { findSubRoute, StreamArgs, subRoutes } from './sub-routes';

/*
 * The client streams' `svc-args` are catalog schemas (SubRoute.args): the server checks them with
 * its route validator (test/stream-args.e2e-spec.ts drives that), the SDK's types come from them.
 */
describe('client stream arguments', () => {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
  const problems = (name: string, args: unknown) => {
    const params = findSubRoute(name)!.args!;
    const validate = ajv.compile(inputSchema(params, { limits: true }));
    return validate(args) ? [] : inputProblems(params, validate.errors ?? []);
  };

  it('gives every client stream its arguments', () => {
    const streams = subRoutes().filter(({ route }) => route.stream);
    expect(streams.map(({ name }) => name).sort()).toEqual(['device_exec.shell', 'device_exec.stream', 'docker_exec.stream', 'forward_start.stream']);
    for (const { route } of streams) expect(route.args).toBeDefined();
  });

  it.each([
    ['device_exec.shell', { cols: 80, rows: 24, term: 'vt100', command: ['/bin/sh'], env: { A: 'b' } }, []],
    ['device_exec.shell', { cols: '80', rows: 0 }, ['cols must be a whole number from 1 to 1000', 'rows must be a whole number from 1 to 1000']],
    ['device_exec.shell', { term: 'xterm\u001b[31m' }, ['term must be a terminal type name such as xterm-256color']],
    ['device_exec.shell', { env: { 'A=B': 'c' } }, ['env must be an object of variable names (no =, no NUL) to strings without NUL, at most 1024 of them']],
    ['device_exec.stream', { command: ['ls'], timeout_secs: 5, stdin: true }, []],
    ['device_exec.stream', { command: ['a\u0000b'], cwd: '/' }, ['unknown field cwd', 'command must not contain NUL characters']],
    ['device_exec.stream', { command: ['ls'], timeout_secs: 1e12 }, ['timeout_secs must be more than 0 and at most 86400']],
    ['forward_start.stream', { target: { kind: 'tcp', port: 22 } }, []],
    ['forward_start.stream', { target: { kind: 'udp', port: 70000, extra: 1 } }, ['unknown field target.extra', 'target.kind must be one of tcp, unix', 'target.port must be a port number from 1 to 65535']],
    ['forward_start.stream', {}, ['target is required']],
    ['docker_exec.stream', { socket: '/var/run/docker.sock' }, ['unknown field socket']],
  ])('%s %j → %j', (name, args, expected) => {
    expect(problems(name, args)).toEqual(expected);
  });

  it('types the SDK\'s arguments from the same schemas (checked by the compiler)', () => {
    const shell: StreamArgs<'device_exec.shell'> = { cols: 80, rows: 24, env: { A: 'b' } };
    const forward: StreamArgs<'forward_start.stream'> = { target: { kind: 'unix', path: '/run/x.sock' } };
    // @ts-expect-error cols is a number
    const wrongType: StreamArgs<'device_exec.shell'> = { cols: '80' };
    // @ts-expect-error an exec stream takes no cwd from a client
    const extra: StreamArgs<'device_exec.stream'> = { command: ['ls'], cwd: '/' };
    // @ts-expect-error command is required
    const missing: StreamArgs<'device_exec.stream'> = { stdin: true };
    // @ts-expect-error kind is tcp or unix
    const kind: StreamArgs<'forward_start.stream'> = { target: { kind: 'udp', port: 1 } };
    expect([shell, forward, wrongType, extra, missing, kind]).toHaveLength(6);
  });
});
