import { EXTENSION_OPERATIONS, isTool, OperationContract, OPERATIONS } from '@svc/common/operations';
import { mcpTools } from '../mcp/tool-definitions';
import { TOOL_COMMANDS } from '../tool-commands';
import { cell, GeneratedRegion, markdownTable } from './generated-region';

/**
 * The operation tables of docs/cli.md and docs/mcp.md, generated from the operation catalog (names,
 * summaries, [Batch], readOnly, extensions), the tool → command map and the commands' own
 * arguments and flags (oclif.manifest.json, written by `npm run build`), so a new operation
 * appears in both documents without a hand edit; operation-docs.spec.ts fails when they are stale.
 */

/** The parts of oclif.manifest.json read here. */
export interface CommandManifest {
  commands: Record<string, { args: Record<string, { name: string; required?: boolean }>; flags: Record<string, ManifestFlag>; usage?: string | string[] }>;
}
interface ManifestFlag {
  type: 'boolean' | 'option';
  helpGroup?: string;
  options?: string[];
  multiple?: boolean;
  required?: boolean;
}

const REGENERATE = 'by `npm run build && npm run docs:operations`; do not edit';
const tools = () => (OPERATIONS as readonly OperationContract[]).filter(isTool);
const isExtension = (op: OperationContract) => (EXTENSION_OPERATIONS as readonly string[]).includes(op.name);

function flagUsage(name: string, flag: ManifestFlag): string {
  const value = flag.options ? ` ${flag.options.join('|')}` : flag.type === 'option' ? ` <${name}>` : '';
  const text = `--${name}${value}${flag.multiple ? '…' : ''}`;
  return flag.required ? text : `[${text}]`;
}

/** `svc <command> <args> [flags]` as the command declares them (its own usage lines when it writes them). */
export function commandUsage(manifest: CommandManifest, command: string): string[] {
  const entry = manifest.commands[command.replace(/ /g, ':')];
  if (!entry) throw new Error(`svc ${command} is not in oclif.manifest.json: run \`npm run build\``);
  if (entry.usage) return [entry.usage].flat().map((usage) => `svc ${usage.replace('<%= command.id %>', command)}`);
  const args = Object.values(entry.args).map((arg) => (arg.required ? `<${arg.name}>` : `[${arg.name}]`));
  const flags = Object.entries(entry.flags).filter(([, flag]) => flag.helpGroup !== 'GLOBAL').map(([name, flag]) => flagUsage(name, flag));
  return [['svc', command, ...args, ...flags].join(' ')];
}

export function renderCommandTable(manifest: CommandManifest): string {
  return markdownTable(
    ['Tool', 'Command', 'What it does'],
    tools().map((op) => [`${op.name}${isExtension(op) ? ' (extension)' : ''}`, commandUsage(manifest, TOOL_COMMANDS[op.name as keyof typeof TOOL_COMMANDS]).map((usage) => `\`${cell(usage)}\``).join(' or '), cell(op.summary)]),
  );
}

export function renderToolTable(): string {
  return markdownTable(
    ['Tool', 'What it does'],
    mcpTools({ readOnly: false }).map(({ name, contract }) => [`${name}${contract.batch ? ' [Batch]' : ''}${isExtension(contract) ? ' (extension)' : ''}`, cell(contract.summary)]),
  );
}

export function renderReadOnlyList(): string {
  return `${mcpTools({ readOnly: true }).map((tool) => tool.name).join(', ')}.`;
}

export const CLI_DOC_REGIONS = (manifest: CommandManifest): GeneratedRegion[] => [
  {
    begin: `<!-- command table: generated from the operation catalog, apps/cli/src/tool-commands.ts and the commands' flags ${REGENERATE} -->`,
    end: '<!-- end of the generated command table -->',
    render: () => renderCommandTable(manifest),
  },
];

export const MCP_DOC_REGIONS: GeneratedRegion[] = [
  { begin: `<!-- tool table: generated from the operation catalog ${REGENERATE} -->`, end: '<!-- end of the generated tool table -->', render: renderToolTable },
  { begin: `<!-- read-only tools: generated from the catalog's readOnly flags ${REGENERATE} -->`, end: '<!-- end of the generated read-only tools -->', render: renderReadOnlyList },
];
