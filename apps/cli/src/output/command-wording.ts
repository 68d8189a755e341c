import type { ToolName } from '@svc/common';
import { TOOL_COMMANDS } from '../tool-commands';

const TOOL_NAMES = new RegExp(`\\b(${Object.keys(TOOL_COMMANDS).join('|')})\\b`, 'g');

/**
 * An error message shared with `svc mcp` names tools (`use device_sync for directories`); a person
 * at the CLI reads the command to type instead (`use svc sync for directories`).
 */
export function inCommandWords(message: string, bin = 'svc'): string {
  return message.replace(TOOL_NAMES, (tool) => `${bin} ${TOOL_COMMANDS[tool as ToolName]}`);
}
