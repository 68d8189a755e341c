const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]

/**
 * Whether UTF-8 JSON text nests objects and arrays deeper than `max`, read byte by byte without
 * parsing: deep values overflow the stack of every recursive walker after JSON.parse (the
 * validation pipe, class-transformer), so they are refused before any of them runs. In UTF-8 the
 * bytes of `"`, `\`, brackets and braces never occur inside a multi-byte character, so strings are
 * skipped exactly. Malformed text is left to JSON.parse.
 */
export function jsonNestsDeeperThan(text: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (OPEN.has(byte)) {
      if (++depth > max) return true;
    } else if (CLOSE.has(byte)) {
      depth--;
    }
  }
  return false;
}
