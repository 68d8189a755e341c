/**
 * Characters that draw nothing, or a blank, where they stand. Format characters (Unicode category
 * Cf: zero-width space and joiners, word joiner, byte order mark, soft hyphen, tag characters) and
 * the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), which render as an empty letter: with them
 * `dev\u200b2` reads as `dev2`, and one name passes for another.
 */
const INVISIBLE = '\\p{Cf}\\u115F\\u1160\\u3164\\uFFA0';

/**
 * Characters refused in free text that other people's terminals show (device names, system
 * information): C0 and C1 controls and DEL, which start terminal escape sequences or forge lines,
 * the line and paragraph separators, the bidirectional formatting characters, which make text read
 * differently from what it is, and the invisible characters above. The CLI applies the same rule
 * to what it prints, `svc mcp` to what it hands an agent.
 */
export const CONTROL_CHARS = new RegExp(`[\\p{Cc}\\p{Bidi_Control}\\u2028\\u2029${INVISIBLE}]`, 'u');

export function hasControlChars(text: string): boolean {
  return CONTROL_CHARS.test(text);
}

const CONTROL_CHARS_ALL = new RegExp(CONTROL_CHARS.source, 'gu');

/** A character as JSON writes it escaped: `\uXXXX` per UTF-16 unit (a tag character is a surrogate pair). */
export function escapeCodeUnits(char: string): string {
  return Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
}

/** Control characters as `\uXXXX`, so that hostile text cannot drive a terminal through an error message. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL_CHARS_ALL, escapeCodeUnits);
}

/**
 * JSON text (as JSON.stringify wrote it) with the rule's characters above U+001F as `\uXXXX`:
 * JSON.stringify escapes only C0, and leaves DEL, C1 (U+009B starts a CSI sequence), the
 * separators, the bidi controls and the invisible characters raw for a terminal or a pager to act
 * on. Below U+0020 only JSON's own whitespace (and a colouring's escapes) can be left, outside
 * strings: kept.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(CONTROL_CHARS_ALL, (c) => (c.charCodeAt(0) < 0x20 ? c : escapeCodeUnits(c)));
}

/** Line feed and tab: the only controls text handed to an AI agent keeps. */
const KEPT_FOR_AGENTS = new Set(['\n', '\t']);
/** Written out for an agent (`\u200b`), not removed: removed, `dev\u200b2` would read as another device's `dev2`. */
const INVISIBLE_ONLY = new RegExp(`^[${INVISIBLE}]$`, 'u');
const BIDI = /^\p{Bidi_Control}$/u;
const writtenOutForAgents = (c: string) => INVISIBLE_ONLY.test(c) && !BIDI.test(c);

/**
 * Every string in `value` (an answer handed to an AI agent by `svc mcp`) without the rule's
 * controls, line feed and tab kept: an escape would be read as text, and a bidi override or a C1
 * control would make what the agent reads differ from what it is. Bidi controls are removed; the
 * other invisible characters are written out as `\uXXXX`, so that a name differs from the name it
 * imitates.
 */
export function stripControlsDeep<T>(value: T): T {
  if (typeof value === 'string') {
    return value.replace(CONTROL_CHARS_ALL, (c) => (KEPT_FOR_AGENTS.has(c) ? c : writtenOutForAgents(c) ? escapeCodeUnits(c) : '')) as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => stripControlsDeep(item)) as T;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [stripControlsDeep(key), stripControlsDeep(item)])) as T;
  return value;
}
