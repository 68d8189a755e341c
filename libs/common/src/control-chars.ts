/**
 * Characters refused in free text that other people's terminals show (device names, system
 * information): C0 and C1 controls and DEL, which start terminal escape sequences or forge lines,
 * the line and paragraph separators, and the bidirectional formatting characters, which make
 * text read differently from what it is. The CLI applies the same rule to what it prints.
 */
export const CONTROL_CHARS = /[\p{Cc}\p{Bidi_Control}\u2028\u2029]/u;

export function hasControlChars(text: string): boolean {
  return CONTROL_CHARS.test(text);
}

const CONTROL_CHARS_ALL = new RegExp(CONTROL_CHARS.source, 'gu');

/** Control characters as `\uXXXX`, so that hostile text cannot drive a terminal through an error message. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL_CHARS_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * JSON text (as JSON.stringify wrote it) with the rule's characters above U+001F as `\uXXXX`:
 * JSON.stringify escapes only C0, and leaves DEL, C1 (U+009B starts a CSI sequence), the
 * separators and the bidi controls raw for a terminal or a pager to act on. Below U+0020 only
 * JSON's own whitespace (and a colouring's escapes) can be left, outside strings: kept.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(CONTROL_CHARS_ALL, (c) => (c.charCodeAt(0) < 0x20 ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/** Line feed and tab: the only controls text handed to an AI agent keeps. */
const KEPT_FOR_AGENTS = new Set(['\n', '\t']);

/**
 * Every string in `value` (an answer handed to an AI agent by `svc mcp`) without the rule's
 * characters, line feed and tab kept: an escape would be read as text, and a bidi override or a
 * C1 control would make what the agent reads differ from what it is.
 */
export function stripControlsDeep<T>(value: T): T {
  if (typeof value === 'string') return value.replace(CONTROL_CHARS_ALL, (c) => (KEPT_FOR_AGENTS.has(c) ? c : '')) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => stripControlsDeep(item)) as T;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [stripControlsDeep(key), stripControlsDeep(item)])) as T;
  return value;
}
