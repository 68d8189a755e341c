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
