import { Command } from '@oclif/core';
import { findOperation, OperationContract, OperationName, pathParams } from '@svc/common/operations';
import { SvcCommand } from './base-command';
import { anyParamArg, paramFlag } from './catalog-flags';
import { renderTable } from './output/table';

import type { Arg, Flag } from '@oclif/core/interfaces';

/** One result for people: a table for a list of objects, `key  value` lines for an object. */
function humanText(result: unknown): string {
  if (Array.isArray(result)) {
    if (result.length === 0) return 'None.';
    const keys = [...new Set(result.flatMap((row) => Object.keys(row as object)))];
    return renderTable(result as Record<string, unknown>[], keys.map((key) => ({ header: key, get: (row) => row[key] })));
  }
  const entries = Object.entries(result as Record<string, unknown>);
  return renderTable(entries, [{ header: 'field', get: ([key]) => key }, { header: 'value', get: ([, value]) => (typeof value === 'object' && value !== null ? JSON.stringify(value) : value) }]);
}

/**
 * The `svc` command of a catalog operation that names one (`command` in its entry), built from the
 * entry alone: its route's path parameters as arguments in order, its other parameters as flags,
 * its summary as the command's; the call goes through the same runner as `svc mcp`.
 * apps/cli/scripts/write-catalog-commands.js writes one command module per such entry at build time.
 */
export function catalogCommand(name: OperationName): typeof Command {
  const op: OperationContract | undefined = findOperation(name);
  if (!op?.command) throw new Error(`${name} names no catalog command`);
  const positional = op.http ? pathParams(op.http) : [];
  const args: Record<string, Arg<string | undefined>> = Object.fromEntries(positional.map((param) => [param, anyParamArg(name, param)]));
  const flags: Record<string, Flag<unknown>> = Object.fromEntries(Object.keys(op.params).filter((param) => !positional.includes(param)).map((param) => [param, paramFlag(name, param)]));
  const command = op.command;

  class CatalogCommand extends SvcCommand<typeof CatalogCommand> {
    static override summary = `${op!.summary}.`;
    static override examples = [`<%= config.bin %> ${command} ${positional.map((param) => `<${param}>`).join(' ')}`.trimEnd(), `<%= config.bin %> ${command} ${positional.map((param) => `<${param}>`).join(' ')} --json`.replace(/ +/g, ' ')];
    static override args = args;
    static override flags = flags;

    async run(): Promise<unknown> {
      const given = { ...(this.args as Record<string, unknown>), ...(this.flags as Record<string, unknown>) };
      const input = Object.fromEntries(Object.keys(op!.params).filter((param) => given[param] !== undefined).map((param) => [param, given[param]]));
      const result = await this.runner.run(name, input);
      this.human(humanText(result));
      return result;
    }
  }
  return CatalogCommand;
}
