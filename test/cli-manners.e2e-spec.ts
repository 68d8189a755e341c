/**
 * How the real `svc` binary reports what went wrong: usage errors as real lines, a mistyped
 * command with a suggestion, a server that cannot be reached or a proxy's 502 told apart from a
 * device that is offline, `svc login`'s failures, and error texts that name commands, not tools.
 */
import { mkdirSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { useFleet } from './fixtures/fleet';
import { CliHome, svc, svcInTerminal } from './fixtures/svc-cli';
import { callToolError, startMcp } from './fixtures/mcp-session';

const ALICE = 'alice@cli-manners.test';

/** What a reverse proxy (nginx, a load balancer) answers when the server behind it is down. */
function startBadGateway(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

function errorJson(stdout: string): { code: string; message: string; exit_code: number } {
  return (JSON.parse(stdout) as { error: { code: string; message: string; exit_code: number } }).error;
}

describe('svc error manners (real binary)', () => {
  const fleet = useFleet({ relay: true, users: { alice: ALICE } });
  let alice: CliHome;
  let proxy: { url: string; server: Server };

  beforeAll(async () => {
    alice = fleet.user('alice').home;
    proxy = await startBadGateway();
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy?.server.close(resolve));
  });

  describe('usage errors', () => {
    it('prints a missing flag as one clear line, not a literal \\n, and exits 2', async () => {
      const result = await svc(alice, ['access', 'add', 'dev-1', 'bob@example.test']);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('Error: Missing required flag role\nSee more help with svc access add --help\n');
    });

    it('prints oclif lists on real lines, and --json gives INVALID_INPUT', async () => {
      const result = await svc(alice, ['access', 'add']);
      expect(result.code).toBe(2);
      expect(result.stderr).not.toContain('\\n');
      expect(result.stderr.split('\n')).toEqual(['Error: Missing 2 required args:', expect.stringMatching(/^device\s+device name or id$/), expect.stringMatching(/^who\s+/), 'See more help with svc access add --help', '']);
      const json = await svc(alice, ['devices', 'logs', 'dev-1', '--max', 'many', '--json']);
      expect(json.code).toBe(2);
      expect(errorJson(json.stdout)).toEqual({ code: 'INVALID_INPUT', message: 'Parsing --max\n  Expected an integer but received: many', exit_code: 2 });
    });

    it('suggests the command meant for a mistyped one, without prompting when there is no terminal', async () => {
      const result = await svc(alice, ['devcies', 'list']);
      expect(result.code).toBe(127);
      expect(result.stderr).toBe('Error: devcies list is not a svc command. Did you mean devices list?\nRun svc --help for a list of commands.\n');
      const inTopic = await svc(alice, ['devices', 'lsit']);
      expect(inTopic.code).toBe(127);
      expect(inTopic.stderr).toContain('Did you mean devices list?\nRun svc devices --help for a list of commands.');
      const help = await svc(alice, ['help', 'devices', 'list']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('$ svc devices list');
      const json = await svc(alice, ['devcies', 'list', '--json']);
      expect(json.code).toBe(127);
      expect(errorJson(json.stdout)).toEqual({ code: 'INVALID_INPUT', message: 'devcies list is not a svc command. Did you mean devices list?', exit_code: 127 });
    });
  });

  describe('a mistyped command on a terminal', () => {
    /** `svc <args>` in a pseudo-terminal; answers `answer` once asked "Did you mean …?". */
    function askedInTerminal(args: string[], answer: string): Promise<{ code: number; output: string }> {
      return svcInTerminal(alice, args, { cols: 100, answer: { when: /Did you mean .*devices list.*\?/, send: answer } });
    }

    it('asks (oclif\'s not-found plugin): no runs nothing and exits 127, yes runs the suggestion', async () => {
      const declined = await askedInTerminal(['devcies', 'list'], 'n\r');
      expect(declined.code).toBe(127);
      expect(declined.output).toContain('Run svc --help for a list of commands.');
      const accepted = await askedInTerminal(['devcies', 'list'], 'y\r');
      expect(accepted.code).toBe(0);
      expect(accepted.output).toContain('No devices');
    });
  });

  describe('error texts name commands, not MCP tools', () => {
    it('cp of a directory says "svc sync", and a copy without a device side says "svc cp"', async () => {
      const dir = join(alice.dir, 'a-directory');
      mkdirSync(dir, { recursive: true });
      const both = await svc(alice, ['cp', dir, join(alice.dir, 'elsewhere')]);
      expect(both.code).toBe(2);
      expect(both.stderr).toBe('Error: svc cp copies to or from a device: write one side as <device>:<path>\n');
      const directory = await svc(alice, ['cp', dir, 'no-such-device:/tmp/x']);
      expect(directory.code).toBe(2);
      expect(directory.stderr).toContain('use svc sync for directories');
      expect(directory.stderr).not.toMatch(/device_(cp|sync)/);
    });

    it('svc mcp keeps the tool names', async () => {
      const mcp = await startMcp(alice.env, [], alice.dir);
      try {
        expect(await callToolError(mcp, 'device_cp', { source: '/tmp/a', dest: '/tmp/b' })).toContain('device_cp copies to or from a device');
      } finally {
        await mcp.close();
      }
    });
  });

  describe('svc ssh-config', () => {
    it('refuses a device that does not exist, with a clear error and exit 2', async () => {
      const result = await svc(alice, ['ssh-config', 'nope']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^Error: Device not found \(request [\w-]+\)\n$/);
    });
  });

  describe('a proxy in front of the server', () => {
    it('reports a 502 with an HTML body as a gateway problem, not a device fault (REST and streams)', async () => {
      const env = { SVC_SERVER_URL: proxy.url };
      for (const args of [['devices', 'list'], ['exec', 'dev-1', '--', 'true'], ['shell', 'dev-1']]) {
        const result = await svc(alice, args, { env });
        expect(result.code).toBe(2);
        expect(result.stderr).toBe('Error: A proxy in front of the svc server answered HTTP 502 (Bad Gateway): the svc server behind it is down or unreachable\n');
        const json = await svc(alice, [...args.slice(0, 2), '--json', ...args.slice(2)], { env });
        expect(errorJson(json.stdout)).toMatchObject({ code: 'BAD_GATEWAY', exit_code: 2 });
      }
    });
  });

  // Port 1 of loopback: nothing listens there and no suite can bind it (a privileged port). The
  // server's own port, freed by stopping it, was once taken by another suite's server within a
  // second in CI, which answered 404 instead of refusing.
  describe('a server that is down', () => {
    const downUrl = 'http://127.0.0.1:1';
    const down = { env: { SVC_SERVER_URL: downUrl } };
    it('says it cannot reach the server at its URL, exit 2, for REST, streams and MCP; svc login fails with exit 3', async () => {
      for (const args of [['devices', 'list'], ['shell', 'dev-1'], ['ls', 'dev-1:/']]) {
        const result = await svc(alice, args, down);
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(new RegExp(`^Error: Cannot reach the server at ${downUrl}: .*ECONNREFUSED.*\\n$`));
        expect(result.stderr).not.toMatch(/offline|bug in svc/i);
      }
      const json = await svc(alice, ['devices', 'list', '--json'], down);
      expect(errorJson(json.stdout)).toMatchObject({ code: 'SERVER_UNREACHABLE', exit_code: 2 });

      const mcp = await startMcp({ ...alice.env, ...down.env }, [], alice.dir);
      try {
        expect(await callToolError(mcp, 'devices_list', {})).toMatch(new RegExp(`^SERVER_UNREACHABLE: Cannot reach the server at ${downUrl}`));
      } finally {
        await mcp.close();
      }

      const login = await svc(alice, ['login', '--no-browser'], down);
      expect(login.code).toBe(3);
      expect(login.stderr).toMatch(new RegExp(`Error: Failed to auth: Cannot reach the server at ${downUrl}`));
      const loginJson = await svc(alice, ['login', '--no-browser', '--json'], down);
      expect(errorJson(loginJson.stdout)).toMatchObject({ code: 'SERVER_UNREACHABLE', exit_code: 3 });
    });
  });
});
