import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DomainError, OperationName, stripControlsDeep } from '@svc/common';
import { stripAnsi } from '../output/terminal-text';

/**
 * Per output field. A model reads every byte it is handed: one `cat` of a log file could fill its
 * whole context, so the start is kept and the rest only counted.
 */
export const OUTPUT_FIELD_LIMIT_BYTES = 100 * 1024;

/** The fields that carry what a command printed to its terminal, per tool. */
const COMMAND_OUTPUT_FIELDS: Partial<Record<OperationName, readonly string[]>> = {
  device_exec: ['output'],
  docker_exec: ['stdout', 'stderr'],
};

/** Control characters a model has no use for; newline and tab stay. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * A command's terminal output as plain text: escape sequences (colours, cursor moves, titles)
 * removed, CR LF as LF and a lone CR (a progress line redrawn) as LF so no state is lost, and any
 * other control character dropped.
 */
export function plainText(text: string): string {
  return stripAnsi(text).replace(/\r\n?/g, '\n').replace(CONTROL, '');
}

/** `text` cut to at most `limitBytes` of UTF-8 (never inside a character), plus a marker saying how much was cut. */
export function capText(text: string, limitBytes = OUTPUT_FIELD_LIMIT_BYTES): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limitBytes) return text;
  let end = limitBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString('utf8')}\n[... truncated ${bytes.length - end} bytes ...]`;
}

/** A tool's result made fit for a model: command output fields as capped plain text, in single and [Batch] answers. */
export function shapeResult(tool: OperationName, result: unknown): unknown {
  const fields = COMMAND_OUTPUT_FIELDS[tool];
  if (!fields || !isObject(result)) return result;
  const shape = (item: unknown) => {
    if (!isObject(item)) return item;
    const shaped = { ...item };
    for (const field of fields) if (typeof shaped[field] === 'string') shaped[field] = capText(plainText(shaped[field]));
    return shaped;
  };
  return Array.isArray(result.results) ? { ...result, results: result.results.map(shape) } : shape(result);
}

/**
 * The result as compact JSON text, once: no structuredContent, since the tools declare no
 * outputSchema and a copy would send every answer twice (docs/mcp.md).
 */
export function toolResult(answer: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(stripControlsDeep(answer)) ?? 'null' }] };
}

/**
 * A failed call as the model sees it: one line with the error's stable code, so it can tell "not
 * found" from "offline" from "log in first". The server's request id only for a server fault
 * (INTERNAL, HTTP 500), where it helps the operator find the failure in the server's log.
 */
export function toolError(error: unknown): CallToolResult {
  const domain = error instanceof DomainError ? error : undefined;
  const message = stripControlsDeep(error instanceof Error ? error.message : String(error));
  const { requestId, statusCode } = (error ?? {}) as { requestId?: unknown; statusCode?: unknown };
  const serverFault = domain?.code === 'INTERNAL' || statusCode === 500;
  const suffix = serverFault && typeof requestId === 'string' ? ` (request ${requestId})` : '';
  return { isError: true, content: [{ type: 'text', text: `${domain?.code ?? 'INTERNAL'}: ${message}${suffix}` }] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
