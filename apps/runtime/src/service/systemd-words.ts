/**
 * Reads unit settings the way systemd does (systemd.syntax(7) "Quoting", systemd.service(5)
 * "Command lines"), so that what `enable` wrote can be checked by running it, and `status` can
 * read it back. Only what a unit of ours can contain is supported; anything else is refused
 * rather than guessed.
 */

const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', s: ' ', '\\': '\\', '"': '"', "'": "'" };

/** `[Section]` → key → values in order (a key may repeat, e.g. Environment=). Comments and continuations handled. */
export function parseUnit(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[') && line.endsWith(']')) {
      section = line.slice(1, -1);
      continue;
    }
    const equals = line.indexOf('=');
    if (equals < 0) throw new Error(`not a unit setting: ${line}`);
    const key = `${section}.${line.slice(0, equals).trim()}`;
    settings.set(key, [...(settings.get(key) ?? []), line.slice(equals + 1).trim()]);
  }
  return settings;
}

/** `%%` → `%`; the unit-dependent specifiers (%n, %h, …) are not something our units use. */
export function expandSpecifiers(value: string): string {
  return value.replace(/%(.)/g, (match, char: string) => {
    if (char === '%') return '%';
    throw new Error(`unsupported specifier ${match}`);
  });
}

/** Splits into words: whitespace separates, '…' and "…" quote (anywhere in a word), C-style escapes. */
export function splitWords(value: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && /\s/.test(value[i])) i++;
    if (i >= value.length) break;
    let word = '';
    let quote: string | undefined;
    for (; i < value.length; i++) {
      const char = value[i];
      if (quote === undefined && /\s/.test(char)) break;
      if (char === '\\') {
        const [text, length] = unescape(value, i + 1);
        word += text;
        i += length;
      } else if (quote === undefined && (char === '"' || char === "'")) quote = char;
      else if (char === quote) quote = undefined;
      else word += char;
    }
    if (quote !== undefined) throw new Error(`unbalanced quote in: ${value}`);
    words.push(word);
  }
  return words;
}

/** One escape after a backslash at `at`: its text and how many characters it took. */
function unescape(value: string, at: number): [string, number] {
  const char = value[at];
  if (char === undefined) throw new Error(`trailing backslash in: ${value}`);
  if (ESCAPES[char] !== undefined) return [ESCAPES[char], 1];
  const numeric = /^(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{3}))/.exec(value.slice(at));
  if (numeric) {
    const code = numeric[1] ?? numeric[2] ?? numeric[3];
    return [String.fromCodePoint(code ? parseInt(code, 16) : parseInt(numeric[4], 8)), numeric[0].length];
  }
  throw new Error(`invalid escape \\${char} in: ${value}`);
}

/**
 * An ExecStart= line as the argv systemd executes: specifiers, words, then the prefix characters
 * of the first word and the variables ($$ → $, ${NAME} anywhere, $NAME as a whole word, split on
 * whitespace), taken from `environment` (the unit's Environment= settings).
 */
export function execStartArgv(line: string, environment: Record<string, string>): string[] {
  const words = splitWords(expandSpecifiers(line));
  if (words.includes(';')) throw new Error('several commands in one ExecStart= line are not supported');
  const prefix = /^[-@:+!]*/.exec(words[0] ?? '')![0];
  if (prefix.includes('@')) throw new Error('the @ prefix is not supported');
  words[0] = words[0].slice(prefix.length);
  if (prefix.includes(':')) return words;
  return words.flatMap((word) => {
    const whole = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(word);
    if (whole) return (environment[whole[1]] ?? '').split(/\s+/).filter(Boolean);
    return [word.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (match, name?: string) => (name === undefined ? '$' : (environment[name] ?? '')))];
  });
}

/** Environment= lines as variables: each word is one NAME=value (no variable expansion here). */
export function environmentOf(lines: string[]): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const word of lines.flatMap((line) => splitWords(expandSpecifiers(line)))) {
    const equals = word.indexOf('=');
    if (equals > 0) environment[word.slice(0, equals)] = word.slice(equals + 1);
  }
  return environment;
}
