import { BATCH_TARGET, ParamSpec } from './contract';
import { findOperation, OPERATIONS } from './catalog';

/**
 * The tool tables of the specification (tools.md), copied as data so the test runs wherever the
 * repository is checked out. A parameter is written `name:type`, then `?` when optional, `=x`
 * when optional with default x, and `{a|b}` when only those values are allowed. Parameters whose
 * type the spec leaves implicit (e.g. "device (required)") are strings, like everywhere else.
 * [Batch] tools list only their own parameters; `device` / `devices` are checked separately.
 */
const SPEC: [tool: string, batch: boolean, params: string[]][] = [
  // Device management
  ['devices_list', false, []],
  ['devices_approve', false, ['device:string']],
  ['devices_reject', false, ['device:string']],
  ['device_status', true, []],
  ['device_audit_logs', true, ['since:string?', 'until:string?', 'max:number=100']],
  // Device access control
  ['device_access_list', false, ['device:string']],
  ['device_access_add', false, ['device:string', 'email_or_org_id:string', 'role:string{admin|editor|viewer}']],
  ['device_access_remove', false, ['device:string', 'email_or_org_id:string']],
  // File operations
  ['device_ls', false, ['path:string']],
  ['device_cp', false, ['source:string', 'dest:string']],
  ['device_sync', false, ['source:string', 'dest:string', 'delete:boolean=false', 'dry_run:boolean=false', 'exclude:string[]?']],
  // Remote execution
  ['device_exec', true, ['command:string[]', 'timeout_secs:number=30']],
  ['docker_exec', false, ['device:string', 'args:string[]', 'timeout_secs:number=60']],
  // Port forwarding
  ['forward_start', false, ['device:string', 'specs:string[]']],
  ['forward_stop', false, ['session_id:string']],
  ['forward_list', false, []],
  // Deployment operations
  [
    'device_deploy',
    false,
    ['device:string', 'file:string', 'spec_type:string=auto{auto|compose|runspec|deployment}', 'name:string?', 'deployment_id:string?'],
  ],
  ['device_undeploy', false, ['device:string', 'job_id:string', 'deployment_id:string?']],
  ['device_deployment_list', true, []],
  ['device_deployment_new', false, ['device:string', 'active:boolean=false']],
  ['device_deployment_show', false, ['device:string', 'deployment_id:string?']],
  ['device_deployment_rm', false, ['device:string', 'deployment_id:string']],
  ['device_deployment_active', false, ['device:string']],
  ['device_deployment_activate', false, ['device:string', 'deployment_id:string']],
  ['device_deployment_status', true, ['deployment_id:string?']],
  ['device_deployment_clone', false, ['device:string', 'deployment_id:string', 'active:boolean=false']],
  // Organization management
  ['org_list', false, []],
  ['org_create', false, ['id:string', 'email:string']],
  ['org_delete', false, ['id:string']],
  ['org_update', false, ['id:string', 'new_id:string']],
  ['org_members_list', false, ['org_id:string']],
  ['org_members_add', false, ['org_id:string', 'email:string', 'role:string{admin|editor|viewer}']],
  ['org_members_remove', false, ['org_id:string', 'email:string']],
  ['org_devices_list', false, ['org_id:string']],
  ['org_devices_add', false, ['org_id:string', 'device:string']],
  ['org_devices_remove', false, ['org_id:string', 'device:string']],
];

type Expected = Pick<ParamSpec, 'type' | 'required' | 'default' | 'enum'>;

function parseParam(text: string): [string, Expected] {
  const m = /^(\w+):(string\[\]|string|number|boolean)(\?|=([^{]+))?(?:\{([^}]+)\})?$/.exec(text);
  if (!m) throw new Error(`bad parameter notation in the spec table: ${text}`);
  const [, name, type, optional, dflt, values] = m;
  const expected: Expected = { type: type as ParamSpec['type'], required: optional === undefined };
  if (dflt !== undefined) expected.default = type === 'number' ? Number(dflt) : type === 'boolean' ? dflt === 'true' : dflt;
  if (values !== undefined) expected.enum = values.split('|');
  return [name, expected];
}

function expectedParams([, batch, params]: (typeof SPEC)[number]): Record<string, Expected> {
  const own = Object.fromEntries(params.map(parseParam));
  return batch ? { device: { type: 'string', required: false }, devices: { type: 'string[]', required: false }, ...own } : own;
}

function actualParams(params: Record<string, ParamSpec>): Record<string, Expected> {
  return Object.fromEntries(
    Object.entries(params).map(([name, p]) => {
      const shape: Expected = { type: p.type, required: p.required };
      if (p.default !== undefined) shape.default = p.default;
      if (p.enum !== undefined) shape.enum = [...p.enum];
      return [name, shape];
    }),
  );
}

describe('operation catalog ↔ specification tool tables', () => {
  const names = OPERATIONS.map((op) => op.name);

  it('has 36 tools in the spec table and no duplicates in either list', () => {
    expect(SPEC).toHaveLength(36);
    expect(new Set(SPEC.map(([tool]) => tool)).size).toBe(SPEC.length);
    expect(new Set(names).size).toBe(names.length);
  });

  it('defines exactly the spec tools', () => {
    expect([...names].sort()).toEqual(SPEC.map(([tool]) => tool).sort());
  });

  describe.each(SPEC)('%s', (tool, batch) => {
    const row = SPEC.find(([t]) => t === tool)!;
    const op = findOperation(tool);

    it(batch ? 'is [Batch]' : 'is not [Batch]', () => {
      expect(op?.batch).toBe(batch);
    });

    it('has exactly the spec parameters, required flags, defaults and allowed values', () => {
      expect(actualParams(op!.params)).toEqual(expectedParams(row));
    });

    it('describes every parameter', () => {
      for (const p of Object.values(op!.params) as ParamSpec[]) expect(p.description.length).toBeGreaterThan(0);
    });
  });

  it('uses the shared device / devices pair for every [Batch] tool', () => {
    for (const op of OPERATIONS.filter((o) => o.batch)) {
      const params = op.params as Record<string, ParamSpec>;
      expect(params.device).toBe(BATCH_TARGET.device);
      expect(params.devices).toBe(BATCH_TARGET.devices);
    }
  });

  it('accepts the tool-facing role names admin, editor, viewer wherever a role is a parameter', () => {
    const roleParams = OPERATIONS.flatMap((op) => Object.entries(op.params as Record<string, ParamSpec>).filter(([name]) => name === 'role'));
    expect(roleParams).toHaveLength(2);
    for (const [, p] of roleParams) expect(p.enum).toEqual(['admin', 'editor', 'viewer']);
  });

  it('finds nothing for an unknown name', () => {
    expect(findOperation('device_reboot')).toBeUndefined();
  });
});
