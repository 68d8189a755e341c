import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '@oclif/core';
import { findOperation, OperationContract, OperationName, ParamSpec } from '@svc/common/operations';
import { catalogCommand } from './catalog-command';
import { bindingOf, integerBounds, ParamBinding } from './catalog-flags';
import { TOOL_COMMANDS } from './tool-commands';

type CommandClass = typeof Command & { passThroughParam?: string };

/** The command a person runs for a tool: its module under commands/, or the one derived from the catalog entry. */
function commandOf(tool: OperationName, id: string): CommandClass {
  const op = findOperation(tool) as OperationContract;
  if (op.command === id) return catalogCommand(tool) as CommandClass;
  const file = join(__dirname, 'commands', ...id.split(' '));
  return (require(existsSync(`${file}.ts`) ? file : join(file, 'index')) as { default: CommandClass }).default;
}

const COMMANDS = Object.entries(TOOL_COMMANDS).map(([tool, id]) => [id, tool as OperationName, commandOf(tool as OperationName, id)] as const);

function inputsOf(command: CommandClass): [string, object][] {
  return [...Object.entries(command.args ?? {}), ...Object.entries(command.flags ?? {})];
}

/**
 * Every `svc` command of a tool takes each parameter of the tool's operation through an argument
 * or a flag derived from that parameter (catalog-flags.ts), or from the words after `--`
 * (`passThroughParam`), so a parameter added to, or changed in, the catalog cannot be missed or
 * contradicted by the CLI. A command keeps its own spelling (`--timeout` for timeout_secs).
 */
describe.each(COMMANDS)('svc %s (%s)', (_id, tool, command) => {
  const op = findOperation(tool) as OperationContract;
  const known: Record<string, ParamSpec> = { ...op.params, ...op.http?.extra };
  const bindings = inputsOf(command).flatMap(([name, input]) => {
    const binding = bindingOf(input);
    return binding ? [[name, binding, input] as [string, ParamBinding, Record<string, unknown>]] : [];
  });

  it("takes every parameter of its operation, by an argument, a flag or the words after '--'", () => {
    const taken = new Set([...bindings.map(([, binding]) => binding.param), ...(command.passThroughParam ? [command.passThroughParam] : [])]);
    expect(Object.keys(op.params).filter((param) => !taken.has(param))).toEqual([]);
  });

  it("derives each argument and flag that gives a parameter from that parameter of its own operation's entry", () => {
    for (const [name, binding] of bindings) expect([name, binding.source, binding.spec]).toEqual([name, tool, known[binding.param]]);
    // A flag named like a parameter (dashes for underscores) that was written by hand would restate it.
    const byHand = inputsOf(command).filter(([name, input]) => known[name.replace(/-/g, '_')] !== undefined && bindingOf(input) === undefined);
    expect(byHand.map(([name]) => name)).toEqual([]);
  });

  it("accepts what the catalog accepts: required, default, allowed values, whole-number bounds", () => {
    for (const [name, { spec }, input] of bindings) {
      const expected = {
        required: spec.required || undefined,
        ...(spec.type === 'boolean' ? { default: spec.default === true } : spec.default !== undefined ? { default: spec.type === 'string' ? String(spec.default) : spec.default } : {}),
        ...(spec.enum ? { options: [...spec.enum] } : {}),
        ...(spec.type === 'number' ? integerBounds(spec) : {}),
      };
      expect([name, Object.fromEntries(Object.keys(expected).map((key) => [key, input[key]]))]).toEqual([name, expected]);
    }
  });
});

it('checks a command for every tool', () => {
  expect(COMMANDS.length).toBe(Object.keys(TOOL_COMMANDS).length);
  expect(COMMANDS.length).toBeGreaterThan(35);
});
