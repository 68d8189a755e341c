/**
 * The specification's tool tables (`../shared/spec/tools.md`, read and parsed here, not copied)
 * against everything that claims to implement them: the operation catalog in libs/common, the
 * tools the built `svc mcp` lists over a real MCP session, and the oclif command each tool has.
 * Not on useFleet: no server; the spec's tables against the catalog, `svc mcp` and the commands.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { EXTENSION_OPERATIONS, findOperation, isTool, OperationContract, OPERATIONS, ParamSpec } from '@svc/common';
import { TOOL_COMMANDS } from '../apps/cli/src/tool-commands';
import { startMcp } from './fixtures/mcp-session';
import { SVC_BIN } from './fixtures/svc-cli';
import { parseToolsSpec, SpecParam, SpecTool, TOOLS_SPEC_PATH } from './fixtures/tools-spec';

const SPEC = parseToolsSpec(readFileSync(TOOLS_SPEC_PATH, 'utf8'));
/** The spec's tools plus the declared extensions (EXTENSION_OPERATIONS): what everything must offer, exactly. */
const OFFERED = [...SPEC.map((tool) => tool.name), ...EXTENSION_OPERATIONS].sort();

function catalogParams(op: OperationContract): Record<string, SpecParam> {
  return Object.fromEntries(
    Object.entries(op.params).map(([name, p]: [string, ParamSpec]) => {
      // A tool's parameters never take `env` (a client stream's argument type): tools.md's types are the others.
      const shape: SpecParam = { type: p.type as SpecParam['type'], required: p.required };
      if (p.default !== undefined) shape.default = p.default;
      if (p.enum !== undefined) shape.enum = [...p.enum];
      return [name, shape];
    }),
  );
}

/** The JSON Schema an MCP input property must have for a spec parameter (its description aside). */
function expectedProperty(param: SpecParam): Record<string, unknown> {
  const type = param.type === 'string[]' ? { type: 'array', items: { type: 'string' } } : { type: param.type };
  return { ...type, ...(param.enum ? { enum: param.enum } : {}), ...(param.default !== undefined ? { default: param.default } : {}) };
}

function withoutDescription(schema: unknown): unknown {
  const { description: _description, ...rest } = schema as Record<string, unknown>;
  return rest;
}

describe('the tool tables of tools.md', () => {
  it('are read as 36 distinct tools, with the notation as written', () => {
    expect(SPEC).toHaveLength(36);
    expect(new Set(SPEC.map((tool) => tool.name)).size).toBe(36);
    // One row per notation the parser knows, so a parser that reads too little cannot pass.
    const row = (name: string) => SPEC.find((tool) => tool.name === name);
    expect(row('device_exec')).toEqual<SpecTool>({
      name: 'device_exec',
      batch: true,
      params: {
        device: { type: 'string', required: false },
        devices: { type: 'string[]', required: false },
        command: { type: 'string[]', required: true },
        timeout_secs: { type: 'number', required: false, default: 30 },
      },
    });
    expect(row('device_deploy')?.params.spec_type).toEqual({ type: 'string', required: false, default: 'auto', enum: ['auto', 'compose', 'runspec', 'deployment'] });
    expect(row('device_deploy')?.params.name).toEqual({ type: 'string', required: false });
    expect(row('device_audit_logs')?.params.since).toEqual({ type: 'string', required: false });
    expect(row('device_access_add')?.params.role).toEqual({ type: 'string', required: true, enum: ['admin', 'editor', 'viewer'] });
    expect(row('device_sync')?.params.exclude).toEqual({ type: 'string[]', required: false });
    expect(row('forward_start')?.params.specs).toEqual({ type: 'string[]', required: true });
    expect(row('org_update')?.params).toEqual({ id: { type: 'string', required: true }, new_id: { type: 'string', required: true } });
    expect(row('forward_list')?.params).toEqual({});
  });
});

describe('operation catalog ↔ tools.md', () => {
  it('defines exactly the spec tools, plus the declared extensions, as tools (REST-only operations are marked tool: false)', () => {
    expect(OPERATIONS.filter(isTool).map((op) => op.name).sort()).toEqual(OFFERED);
  });

  it('declares as extensions only operations that are not tools of the spec', () => {
    const specTools = SPEC.map((tool) => tool.name);
    const beyondTheSpec = OPERATIONS.filter(isTool).map((op) => op.name).filter((name) => !specTools.includes(name));
    expect([...EXTENSION_OPERATIONS].sort()).toEqual(beyondTheSpec.sort());
    expect(EXTENSION_OPERATIONS).toContain('device_rename');
    for (const name of EXTENSION_OPERATIONS) expect(specTools).not.toContain(name);
  });

  it.each(SPEC.map((tool) => [tool.name, tool] as const))('%s has the spec [Batch] marker and exactly its parameters, required flags, defaults and allowed values', (name, tool) => {
    const op = findOperation(name) as OperationContract;
    expect(op.batch).toBe(tool.batch);
    expect(catalogParams(op)).toEqual(tool.params);
  });
});

describe('svc mcp ↔ tools.md (the built binary over stdio)', () => {
  let home: string;

  async function listTools(args: string[] = []): Promise<Tool[]> {
    // Listing needs no login and no server: nothing is sent until a tool is called.
    const mcp = await startMcp({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, SVC_SERVER_URL: 'http://127.0.0.1:9' }, args);
    try {
      return (await mcp.client.listTools()).tools;
    } finally {
      await mcp.close();
    }
  }

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'svc-tool-parity-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('lists every tool of the spec (and the declared extensions), each with an input schema of exactly its parameters', async () => {
    const tools = await listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(OFFERED);
    const rename = tools.find((tool) => tool.name === 'device_rename')!;
    expect(Object.keys(rename.inputSchema.properties ?? {}).sort()).toEqual(['device', 'name']);
    expect(rename.description).toMatch(/^Rename a device\. Returns .*Extension beyond the spec\./);
    for (const spec of SPEC) {
      const tool = tools.find((t) => t.name === spec.name)!;
      const properties = Object.fromEntries(Object.entries(tool.inputSchema.properties ?? {}).map(([name, schema]) => [name, withoutDescription(schema)]));
      expect([spec.name, properties]).toEqual([spec.name, Object.fromEntries(Object.entries(spec.params).map(([name, param]) => [name, expectedProperty(param)]))]);
      const required = Object.entries(spec.params).filter(([, param]) => param.required).map(([name]) => name);
      expect([spec.name, [...(tool.inputSchema.required ?? [])].sort()]).toEqual([spec.name, required.sort()]);
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.description).toMatch(spec.batch ? /\[Batch\] Give either device .* or devices/ : /^[A-Z].*\./);
    }
  });

  it('lists with --read-only exactly the tools the catalog marks read-only', async () => {
    const tools = await listTools(['--read-only']);
    const readOnly = OPERATIONS.filter((op) => isTool(op) && op.readOnly).map((op) => op.name);
    expect(tools.map((tool) => tool.name).sort()).toEqual([...readOnly].sort());
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
  });
});

describe('CLI commands ↔ tools.md', () => {
  /**
   * The commands the built CLI knows, as oclif finds them (from apps/cli/oclif.manifest.json) and
   * each loaded from dist/. Asked in a child process: oclif loads commands with a dynamic import,
   * which Jest's module sandbox cannot run.
   */
  function builtCommands(ids: string[]): Record<string, boolean> {
    const script = `
      const { Config } = require('@oclif/core');
      Config.load({ root: process.argv[1] }).then(async (config) => {
        const found = {};
        for (const id of JSON.parse(process.argv[2])) found[id] = (await config.findCommand(id)?.load()) !== undefined;
        process.stdout.write(JSON.stringify(found));
      });`;
    return JSON.parse(execFileSync(process.execPath, ['-e', script, resolve(SVC_BIN, '../..'), JSON.stringify(ids)], { encoding: 'utf8' }));
  }

  it('maps every tool and declared extension, and no other, to a command', () => {
    expect(Object.keys(TOOL_COMMANDS).sort()).toEqual(OFFERED);
  });

  it('has each mapped command in the built CLI', () => {
    const ids = Object.values(TOOL_COMMANDS).map((command) => command.replace(/ /g, ':'));
    expect(builtCommands(ids)).toEqual(Object.fromEntries(ids.map((id) => [id, true])));
  });
});
