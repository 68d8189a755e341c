import { AnyCapability, capabilitiesOf, isTool, OperationContract, OPERATIONS } from '@svc/common';
import { mcpTools } from './tool-definitions';

describe('mcpTools', () => {
  it('lists every tool operation of the catalog, in catalog order, and none marked tool: false', () => {
    expect(mcpTools({ readOnly: false }).map((tool) => tool.name)).toEqual(OPERATIONS.filter(isTool).map((op) => op.name));
  });

  it('lists only the read-only operations with readOnly, marked with readOnlyHint', () => {
    const tools = mcpTools({ readOnly: true });
    expect(tools.map((tool) => tool.name)).toEqual(OPERATIONS.filter((op) => isTool(op) && op.readOnly).map((op) => op.name));
    expect(tools.length).toBeGreaterThan(10);
    for (const tool of tools) expect(tool.definition.annotations?.readOnlyHint).toBe(true);
  });

  /**
   * What makes an operation read-only, checked apart from its readOnly flag, so a flag set on an
   * operation that writes fails here: it needs only capabilities that read (a deliberate short
   * list, of capabilities rather than operations), its route, if any, is a GET or a [Batch]
   * read (POST with a list of devices), and the routes a client composes it from are GETs. Tools that write on the caller's machine need no
   * capability; the spec's writers are named so that none of them can pass as a read.
   */
  const READING_CAPABILITIES: readonly AnyCapability[] = ['device:view', 'device:read-files', 'org:view', 'org:devices'];
  const SPEC_WRITERS = ['device_exec', 'docker_exec', 'device_cp', 'device_sync', 'forward_start', 'forward_stop', 'devices_approve', 'device_deploy', 'org_create'];

  // The tools `svc mcp --read-only` may offer; a REST-only operation (tool: false) is never listed.
  it.each((OPERATIONS as readonly OperationContract[]).filter((op) => isTool(op) && op.readOnly).map((op) => [op.name, op] as const))('%s, marked readOnly, only reads', (name, op) => {
    expect(capabilitiesOf(op).filter((capability) => !READING_CAPABILITIES.includes(capability))).toEqual([]);
    if (op.http) expect(op.http.method === 'GET' || op.batch).toBe(true);
    for (const route of Object.values(op.routes ?? {})) expect([route.path, route.method, READING_CAPABILITIES.includes(route.capability)]).toEqual([route.path, 'GET', true]);
    expect(SPEC_WRITERS).not.toContain(name);
  });

  const definition = (name: string) => mcpTools({ readOnly: false }).find((tool) => tool.name === name)!.definition;

  it('builds the input schema from the catalog: types, required, allowed values, defaults, nothing else accepted; no description where the name says it', () => {
    expect(definition('device_access_add').inputSchema).toEqual({
      type: 'object',
      properties: {
        device: { type: 'string' },
        email_or_org_id: { type: 'string', description: 'an e-mail or an organization id' },
        role: { type: 'string', enum: ['admin', 'editor', 'viewer'] },
      },
      required: ['device', 'email_or_org_id', 'role'],
      additionalProperties: false,
    });
    expect(definition('device_sync').inputSchema.properties).toMatchObject({ delete: { type: 'boolean', default: false }, exclude: { type: 'array', items: { type: 'string' } } });
    expect(definition('device_sync').inputSchema.required).toEqual(['source', 'dest']);
    expect(definition('forward_list').inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('says for every tool what it returns', () => {
    for (const tool of mcpTools({ readOnly: false })) expect([tool.name, tool.definition.description]).toEqual([tool.name, expect.stringMatching(/\. Returns (array of )?\{|\. Returns the /)]);
    expect(definition('org_members_list').description).toBe('List the members of an organization. Returns array of {email, role}.');
    expect(definition('device_deployment_list').description).toMatch(/Returns \{deployments: \[\{id, active, name, jobs: \[\{id, type, enabled\}\].*device_deployment_show has the rest/);
  });

  it('tells a model how [Batch] targets, remote paths and command output work', () => {
    expect(definition('device_status').description).toMatch(/^Connection status.*\[Batch\] Give either device .* or devices .*\{results: /);
    expect(definition('device_cp').description).toContain('<device>:<path> is on the device, a plain path here.');
    expect(definition('device_exec').description).toMatch(/no shell.*non-zero exit_code is data.*cut at 100 KB/);
    expect(definition('forward_start').description).toContain('until svc mcp exits');
    expect(definition('org_list').description).not.toContain('[Batch]');
    expect(definition('device_deploy').description).toMatch(/file is a path here/);
    expect(definition('device_deployment_status').description).toMatch(/\[Batch\] Give either device/);
  });

  it('keeps the listing small: titles only in descriptions, read-only hints only where true', () => {
    for (const tool of mcpTools({ readOnly: false })) expect(tool.definition.annotations).toEqual(tool.contract.readOnly ? { readOnlyHint: true } : undefined);
    const bytes = Buffer.byteLength(JSON.stringify({ tools: mcpTools({ readOnly: false }).map((tool) => tool.definition) }));
    expect(bytes).toBeLessThan(15 * 1024);
  });
});
