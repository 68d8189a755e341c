/**
 * `svc mcp` end to end: an agent's MCP client (the SDK's Client over stdio) driving the real
 * binary, logged in through the real identity provider, against the real server and a real
 * runtime process as the device — the device is this machine, so its files and its loopback are
 * the test's own.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isTool, OPERATIONS } from '@svc/common';
import { exchange, startEchoServer, TargetServer } from './fixtures/forward-targets';
import { callTool, callToolError, McpSession, startMcp } from './fixtures/mcp-session';
import { useFleet } from './fixtures/fleet';
import { freePort } from './fixtures/free-port';
import { CliHome, cliHome, spawnSvc, svc } from './fixtures/svc-cli';
import { eventually } from './fixtures/eventually';
import type { TestServer } from './fixtures/test-server';

const ALICE = 'alice@mcp.test';
const BOB = 'bob@mcp.test';

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('svc mcp (real binary, real server, real runtime)', () => {
  // Bob: an account to share with.
  const fleet = useFleet({
    users: { alice: ALICE, bob: BOB },
    devices: { 'mcp-1': { owner: 'alice', runtime: true }, 'mcp-off': { owner: 'alice' }, 'mcp-viewed': { owner: 'alice', shares: { bob: 'viewer' } } },
  });
  let server: TestServer;
  let echo: TargetServer;
  let deviceDir: string;
  let alice: CliHome;
  let mcp: McpSession;

  beforeAll(async () => {
    deviceDir = mkdtempSync(join(tmpdir(), 'svc-mcp-device-'));
    server = fleet.server;
    echo = await startEchoServer({ host: '127.0.0.1' });
    alice = fleet.user('alice').home;
    mcp = await startMcp(alice.env, [], alice.dir);
  });
  afterAll(async () => {
    await mcp?.close();
    await echo?.close();
    rmSync(deviceDir, { recursive: true, force: true });
  });

  it('lists the tools and keeps stdout for the protocol (diagnostics on stderr)', async () => {
    const { tools } = await mcp.client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['devices_list', 'device_exec', 'docker_exec', 'device_cp', 'forward_start', 'org_create', 'device_deploy', 'device_deployment_status']));
    expect(mcp.stderr()).toContain('svc mcp');
  });

  it('answers malformed JSON-RPC with an error of id null (-32700, -32600) and goes on serving', async () => {
    const raw = spawnSvc(alice, ['mcp'], { cwd: alice.dir });
    let out = '';
    raw.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const exited = new Promise((resolve) => raw.once('exit', resolve));
    let answers: unknown[];
    try {
      raw.stdin!.write('{not json\n[]\n{"jsonrpc":"2.0"}\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
      answers = await eventually('four answers', () => {
        const lines = out.split('\n').filter(Boolean);
        return lines.length >= 4 && lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      }, { describe: () => `stdout so far: ${out}` });
    } finally {
      raw.stdin!.end();
      await exited;
    }
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
      { jsonrpc: '2.0', id: 7, result: {} },
    ]);
  });

  it('lists its tools compactly (under 15 KB; it was 18.6 KB), each saying what it returns', async () => {
    const listing = await mcp.client.listTools();
    expect(Buffer.byteLength(JSON.stringify(listing))).toBeLessThan(15 * 1024);
    for (const tool of listing.tools) expect([tool.name, tool.description]).toEqual([tool.name, expect.stringMatching(/\. Returns /)]);
    expect(listing.tools.find((tool) => tool.name === 'org_members_list')?.description).toBe('List the members of an organization. Returns array of {email, role}.');
  });

  it('answers with compact JSON text, once: no pretty-printing, no structuredContent copy', async () => {
    const answer = (await mcp.client.callTool({ name: 'device_status', arguments: { devices: ['mcp-1', 'mcp-off'] } })) as CallToolResult;
    expect(answer.structuredContent).toBeUndefined();
    expect(answer.content).toHaveLength(1);
    const [text] = answer.content as Array<{ type: 'text'; text: string }>;
    expect(text.text).not.toMatch(/\n|": /);
    expect(JSON.stringify(JSON.parse(text.text))).toBe(text.text);
    expect(JSON.parse(text.text)).toEqual({ results: [expect.objectContaining({ device: 'mcp-1', status: 'online' }), expect.objectContaining({ device: 'mcp-off', status: 'offline' })] });
  });

  it('leaves the server request id out of a tool error that is not a server fault', async () => {
    const offline = await callToolError(mcp, 'device_exec', { device: 'mcp-off', command: ['true'] });
    expect(offline).toMatch(/^DEVICE_OFFLINE: /);
    expect(offline).not.toContain('request');
    const unknown = await callToolError(mcp, 'device_access_list', { device: 'mcp-nope' });
    expect(unknown).toBe('DEVICE_NOT_FOUND: Device not found');
  });

  describe('devices', () => {
    it('devices_list shows the devices with their connection state', async () => {
      const devices = await callTool<Array<{ name: string; status: string }>>(mcp, 'devices_list');
      expect(devices).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'mcp-1', status: 'online' }), expect.objectContaining({ name: 'mcp-off', status: 'offline' })]));
    });

    it('device_status answers one device, and a [Batch] of them with one result each', async () => {
      expect(await callTool(mcp, 'device_status', { device: 'mcp-1' })).toMatchObject({ status: 'online' });
      const batch = await callTool(mcp, 'device_status', { devices: ['mcp-1', 'mcp-off'] });
      expect(batch).toEqual({ results: [expect.objectContaining({ device: 'mcp-1', status: 'online' }), expect.objectContaining({ device: 'mcp-off', status: 'offline' })] });
    });

    it('refuses a [Batch] call with both device and devices, or neither, as a tool error', async () => {
      expect(await callToolError(mcp, 'device_status', { device: 'mcp-1', devices: ['mcp-off'] })).toMatch(/^INVALID_INPUT: Give either device or devices, not both/);
      expect(await callToolError(mcp, 'device_exec', { command: ['true'] })).toMatch(/^INVALID_INPUT: Give device .* or devices/);
    });

    it('refuses a parameter of the wrong type before anything is sent', async () => {
      expect(await callToolError(mcp, 'device_exec', { device: 'mcp-1', command: 'uname -a' })).toBe('INVALID_INPUT: device_exec: command must be an array of strings, not "uname -a"');
    });
  });

  describe('device_exec', () => {
    it('runs a command and gives its output without terminal escape sequences', async () => {
      const answer = await callTool(mcp, 'device_exec', { device: 'mcp-1', command: ['printf', '\\033[31mred\\033[0m'] });
      expect(answer).toEqual({ output: 'red', exit_code: 0, timed_out: false });
    });

    it('returns a non-zero exit code as data', async () => {
      expect(await callTool(mcp, 'device_exec', { device: 'mcp-1', command: ['sh', '-c', 'echo no; exit 3'] })).toEqual({ output: 'no\n', exit_code: 3, timed_out: false });
    });

    it('runs a [Batch] and reports a device that does not exist as that device\'s error', async () => {
      const answer = await callTool(mcp, 'device_exec', { devices: ['mcp-1', 'mcp-nope'], command: ['echo', 'hi'] });
      expect(answer).toEqual({ results: [{ device: 'mcp-1', output: 'hi\n', exit_code: 0, timed_out: false }, { device: 'mcp-nope', error: expect.any(String), code: 'DEVICE_NOT_FOUND' }] });
    });

    it('cuts a very large output at 100 KB and says how much was left out', async () => {
      const answer = await callTool<{ output: string }>(mcp, 'device_exec', { device: 'mcp-1', command: ['sh', '-c', "head -c 200000 /dev/zero | tr '\\0' x"] });
      expect(answer.output).toBe(`${'x'.repeat(100 * 1024)}\n[... truncated ${200000 - 100 * 1024} bytes ...]`);
    });
  });

  describe('files', () => {
    it('copies a local file to the device, lists it there and copies it back', async () => {
      const content = randomBytes(64 * 1024).toString('base64');
      writeFileSync(join(alice.dir, 'upload.txt'), content);
      // A plain path is local (relative to svc mcp's working directory); <device>:<path> is remote.
      expect(await callTool(mcp, 'device_cp', { source: 'upload.txt', dest: `mcp-1:${deviceDir}/uploaded.txt` })).toEqual({ status: 'copied' });
      expect(readFileSync(join(deviceDir, 'uploaded.txt'), 'utf8')).toBe(content);
      expect(await callTool(mcp, 'device_ls', { path: `mcp-1:${deviceDir}` })).toContainEqual(expect.objectContaining({ name: 'uploaded.txt', is_dir: false }));
      expect(await callTool(mcp, 'device_cp', { source: `mcp-1:${deviceDir}/uploaded.txt`, dest: 'back.txt' })).toEqual({ status: 'copied' });
      expect(readFileSync(join(alice.dir, 'back.txt'), 'utf8')).toBe(content);
    });
  });

  describe('forwards', () => {
    it('forwards a local port to a TCP server on the device until forward_stop', async () => {
      const port = await freePort();
      const started = await callTool(mcp, 'forward_start', { device: 'mcp-1', specs: [`${port}:${echo.port}`] });
      expect(started).toEqual({ session_id: expect.stringMatching(/^fwd-/), device: 'mcp-1', targets: [expect.stringContaining(String(port))], status: 'started' });
      const data = randomBytes(32 * 1024);
      expect((await exchange({ port }, data)).equals(data)).toBe(true);
      expect(await callTool(mcp, 'forward_list')).toEqual([{ session_id: started.session_id, device: 'mcp-1', specs: [`${port}:${echo.port}`], targets: started.targets }]);
      expect(await callTool(mcp, 'forward_stop', { session_id: started.session_id })).toEqual({ session_id: started.session_id, status: 'stopped' });
      expect(await accepts(port)).toBe(false);
      expect(await callTool(mcp, 'forward_list')).toEqual([]);
    });

    it('refuses a forward to a device the user cannot see, and stopping an unknown session', async () => {
      expect(await callToolError(mcp, 'forward_start', { device: 'mcp-nope', specs: [`${await freePort()}:${echo.port}`] })).toMatch(/^DEVICE_NOT_FOUND: /);
      expect(await callToolError(mcp, 'forward_stop', { session_id: 'fwd-0123456789ab' })).toMatch(/^NOT_FOUND: No forward session fwd-0123456789ab/);
    });

    it('refuses a forward to a device the user may only view, before anything listens', async () => {
      const bob = await startMcp(fleet.user('bob').home.env, [], fleet.user('bob').home.dir);
      try {
        const port = await freePort();
        expect(await callToolError(bob, 'forward_start', { device: 'mcp-viewed', specs: [`${port}:${echo.port}`] })).toBe('FORBIDDEN: Access denied: your role (viewer) does not allow device:forward');
        expect(await accepts(port)).toBe(false);
        expect(await callTool(bob, 'forward_list')).toEqual([]);
      } finally {
        await bob.close();
      }
    });

    it.each([
      ['its client closes stdin', (session: McpSession) => session.close()],
      ['it gets SIGTERM', async (session: McpSession) => {
        process.kill(session.pid, 'SIGTERM');
        await session.exited;
      }],
    ])('ends its forwards when %s', async (_how, stop) => {
      const own = await startMcp(alice.env, [], alice.dir);
      const port = await freePort();
      await callTool(own, 'forward_start', { device: 'mcp-1', specs: [`${port}:${echo.port}`] });
      expect(await accepts(port)).toBe(true);
      await stop(own);
      expect(await accepts(port)).toBe(false);
      expect(own.stderr()).toContain('svc mcp: stopping');
      await own.close();
    });
  });

  describe('access and organizations', () => {
    it('shares a device and lists who has access', async () => {
      expect(await callTool(mcp, 'device_access_add', { device: 'mcp-1', email_or_org_id: BOB, role: 'viewer' })).toEqual({ status: 'added' });
      expect(await callTool(mcp, 'device_access_list', { device: 'mcp-1' })).toEqual(expect.arrayContaining([{ email: BOB, role: 'viewer' }]));
    });

    it('adds a member to an organization the user owns and lists the members; a role outside the enum is refused', async () => {
      // Creating organizations is an administrator's; the user owns this one.
      await fleet.admin.run('org_create', { id: 'mcp-org', email: ALICE });
      expect(await callTool(mcp, 'org_list')).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'mcp-org', owner: ALICE })]));
      expect(await callTool(mcp, 'org_members_add', { org_id: 'mcp-org', email: BOB, role: 'editor' })).toEqual({ status: 'added' });
      expect(await callTool(mcp, 'org_members_list', { org_id: 'mcp-org' })).toEqual(expect.arrayContaining([{ email: BOB, role: 'editor' }]));
      expect(await callToolError(mcp, 'org_members_add', { org_id: 'mcp-org', email: BOB, role: 'owner' })).toMatch(/^INVALID_INPUT: .*role must be one of admin, editor, viewer/);
    });
  });

  it('is recorded in the audit log "(via MCP)", unlike the same user\'s CLI commands', async () => {
    await callTool(mcp, 'device_exec', { device: 'mcp-1', command: ['echo', 'from-mcp'] });
    expect((await svc(alice, ['exec', 'mcp-1', '--', 'echo', 'from-cli'])).code).toBe(0);
    const res = (await fleet.user('alice').run('device_audit_logs', { device: 'mcp-1' })) as { logs: Array<{ action: string; user: string; details: string }> };
    const execs = res.logs.filter((entry) => entry.action === 'device.exec');
    expect(execs.find((entry) => entry.details.includes('from-mcp'))).toMatchObject({ user: ALICE, details: expect.stringMatching(/from-mcp \(via MCP\)$/) });
    expect(execs.find((entry) => entry.details.includes('from-cli'))?.details).not.toContain('via MCP');
    // Streams say so too: the forward and the file transfers of the tests above.
    const streamed = res.logs.filter((entry) => entry.action === 'device.forward_opened' || entry.action === 'device.file_written');
    expect(streamed.length).toBeGreaterThan(0);
    for (const entry of streamed) expect(entry.details).toMatch(/\(via MCP\)$/);
  });

  describe('--read-only', () => {
    let readOnly: McpSession;
    beforeAll(async () => {
      readOnly = await startMcp(alice.env, ['--read-only'], alice.dir);
    });
    afterAll(() => readOnly?.close());

    it("lists only tools that change nothing: the catalog's readOnly tools (tool-definitions.spec.ts checks that each only reads), none of the writers", async () => {
      const names = (await readOnly.client.listTools()).tools.map((tool) => tool.name);
      expect(names.sort()).toEqual(OPERATIONS.filter((op) => isTool(op) && op.readOnly).map((op) => op.name).sort());
      expect(names).toContain('device_status');
      for (const writer of ['device_exec', 'docker_exec', 'device_cp', 'device_sync', 'forward_start', 'devices_approve', 'device_deploy']) expect(names).not.toContain(writer);
    });

    it('answers a read, and refuses device_exec without running it', async () => {
      expect(await callTool(readOnly, 'device_status', { device: 'mcp-1' })).toMatchObject({ status: 'online' });
      expect(await callToolError(readOnly, 'device_exec', { device: 'mcp-1', command: ['touch', join(deviceDir, 'read-only-ran')] })).toMatch(/^FORBIDDEN: device_exec changes things, and this svc mcp runs with --read-only/);
      expect(await callTool(readOnly, 'device_ls', { path: `mcp-1:${deviceDir}` })).not.toContainEqual(expect.objectContaining({ name: 'read-only-ran' }));
    });
  });

  describe('not logged in', () => {
    let nobody: CliHome;
    let anonymous: McpSession;
    beforeAll(async () => {
      nobody = cliHome(server);
      anonymous = await startMcp(nobody.env, [], nobody.dir);
    });
    afterAll(async () => {
      await anonymous?.close();
      nobody?.remove();
    });

    it('still starts and lists its tools', async () => {
      expect((await anonymous.client.listTools()).tools.length).toBeGreaterThan(20);
    });

    it('answers every call that needs the user with a tool error saying to run svc login', async () => {
      expect(await callToolError(anonymous, 'devices_list')).toBe('UNAUTHENTICATED: Not logged in: run "svc login" first');
      expect(await callToolError(anonymous, 'device_exec', { device: 'mcp-1', command: ['true'] })).toContain('svc login');
    });
  });
});
