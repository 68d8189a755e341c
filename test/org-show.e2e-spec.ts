/**
 * org_show, an operation added with its catalog entry, one service method and these tests only:
 * its REST route (GET /orgs/{org_id}), its `svc orgs show` command and its `svc mcp` tool are all
 * derived from the entry. Driven the way people and agents use it: the real `svc` binary, the
 * real `svc mcp` over stdio, and the REST API.
 */
import { callTool, callToolError, startMcp } from './fixtures/mcp-session';
import { useFleet } from './fixtures/fleet';

describe('org_show: one organization, through every client', () => {
  const fleet = useFleet({
    users: { alice: 'alice@org-show.test', bob: 'bob@org-show.test', eve: 'eve@org-show.test' },
    orgs: { acme: { owner: 'alice', members: { bob: 'viewer' } } },
  });
  const ACME = { id: 'acme', owner: 'alice@org-show.test', members: 2 };

  it('answers a member over REST, as org_list lists the organization', async () => {
    const bob = fleet.user('bob');
    await expect(bob.run('org_show', { id: 'acme' })).resolves.toEqual(ACME);
    const listed = await bob.run('org_list', {});
    expect(listed).toContainEqual(ACME);
  });

  it('is "not found" for someone outside the organization, and for an organization that does not exist', async () => {
    const eve = fleet.user('eve');
    const outside = await eve.attempt('org_show', { id: 'acme' });
    const missing = await eve.attempt('org_show', { id: 'nowhere' });
    expect(outside).toEqual({ ok: false, error: expect.objectContaining({ status: 404, code: 'NOT_FOUND' }) });
    expect(missing).toEqual({ ok: false, error: expect.objectContaining({ status: 404, code: 'NOT_FOUND', message: (outside as { error: { message: string } }).error.message.replace('acme', 'nowhere') }) });
  });

  it('is `svc orgs show` in the real binary: a table for people, the result with --json, one clear line on refusal', async () => {
    const alice = fleet.user('alice');
    await expect(alice.svcJson(['orgs', 'show', 'acme', '--json'])).resolves.toEqual(ACME);
    const human = await alice.svc(['orgs', 'show', 'acme']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^FIELD\s+VALUE\nid\s+acme\nowner\s+alice@org-show\.test\nmembers\s+2\n$/);

    const refused = await fleet.user('eve').svc(['orgs', 'show', 'acme']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/not found/i);

    const help = await alice.svc(['orgs', 'show', '--help']);
    expect(help.stdout).toContain('One organization, as org_list lists it');
  });

  it('is a `svc mcp` tool with the catalog\'s input schema', async () => {
    const alice = fleet.user('alice');
    const mcp = await startMcp(alice.home.env, [], alice.home.dir);
    try {
      const tool = (await mcp.client.listTools()).tools.find((listed) => listed.name === 'org_show');
      expect(tool?.inputSchema).toMatchObject({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] });
      expect((await mcp.client.listTools()).tools.map((listed) => listed.name)).toContain('org_show');
      await expect(callTool(mcp, 'org_show', { id: 'acme' })).resolves.toEqual(ACME);
      expect(await callToolError(mcp, 'org_show', { id: 'acme', extra: 1 })).toMatch(/extra/);
    } finally {
      await mcp.close();
    }
  });
});
