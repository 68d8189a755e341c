import { BATCH_TARGET, capabilitiesOf, OperationContract, ParamSpec, pathParams } from './contract';
import { subRoutes } from './sub-routes';
import { findOperation, OPERATIONS } from './catalog';

/*
 * The catalog's own rules. That it holds exactly the tools and parameters of the specification is
 * checked against tools.md itself, parsed at test time: test/tool-parity.e2e-spec.ts.
 */

describe('operation catalog', () => {
  const names = OPERATIONS.map((op) => op.name);

  it('has no duplicate names', () => {
    expect(new Set(names).size).toBe(names.length);
  });

  it('describes every operation and every parameter', () => {
    for (const op of OPERATIONS) {
      expect(op.summary.length).toBeGreaterThan(0);
      for (const p of Object.values(op.params) as ParamSpec[]) expect([op.name, p.description.length > 0]).toEqual([op.name, true]);
    }
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

  describe('readOnly (what `svc mcp --read-only` offers)', () => {
    it('holds for every operation a GET route serves, and for none a DELETE or PATCH route serves', () => {
      for (const op of OPERATIONS) {
        const method = 'http' in op ? op.http.method : undefined;
        if (method === 'GET') expect([op.name, op.readOnly]).toEqual([op.name, true]);
        if (method === 'DELETE' || method === 'PATCH') expect([op.name, op.readOnly]).toEqual([op.name, false]);
      }
    });

    // By the verb that ends the name; a new tool whose verb is in neither list fails until decided.
    const WRITES = /_(exec|cp|sync|start|stop|add|remove|create|delete|update|approve|reject|rename|deploy|undeploy|new|rm|activate|clone|grant|reset)$/;
    const READS = /_(list|ls|status|logs|show|active|capabilities)$/;

    it('never holds for a tool that runs commands, writes files, opens listeners or changes who has access', () => {
      for (const op of OPERATIONS.filter((o) => WRITES.test(o.name))) expect([op.name, op.readOnly]).toEqual([op.name, false]);
    });

    it('holds for the listings and status reads', () => {
      for (const op of OPERATIONS.filter((o) => READS.test(o.name))) expect([op.name, op.readOnly]).toEqual([op.name, true]);
    });

    it('is decided for every operation by one of those verbs', () => {
      expect(OPERATIONS.filter((op) => !WRITES.test(op.name) && !READS.test(op.name)).map((op) => op.name)).toEqual([]);
    });
  });

  it("gives each of an operation's `routes` one of the operation's capabilities, and its path's parameters", () => {
    for (const op of OPERATIONS as readonly OperationContract[]) {
      for (const [key, route] of Object.entries(op.routes ?? {})) {
        expect([`${op.name}.${key}`, capabilitiesOf(op).includes(route.capability)]).toEqual([`${op.name}.${key}`, true]);
        expect(pathParams(route).filter((name) => route.params[name] === undefined)).toEqual([]);
        expect(pathParams(route)).toContain('device');
      }
    }
    expect(subRoutes().length).toBeGreaterThanOrEqual(14);
  });

  it('finds nothing for an unknown name', () => {
    expect(findOperation('device_reboot')).toBeUndefined();
  });
});
