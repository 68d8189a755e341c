import { CONTROL_CHARS } from '@svc/common/control-chars';

/**
 * Text that came from devices or other users (hostnames, names, audit details) is shown with
 * every control character escaped, so it cannot move the cursor, recolour, retitle or forge
 * lines in the reader's terminal. The raw output of `svc exec` and `svc shell` is the exception:
 * it is what the user asked to see.
 */
const UNSAFE = new RegExp(CONTROL_CHARS.source, 'gu');

export function escapeTerminal(text: string): string {
  return text.replace(UNSAFE, (char) => {
    if (char === '\n') return '\\n';
    if (char === '\r') return '\\r';
    if (char === '\t') return '\\t';
    const code = char.codePointAt(0)!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/** ANSI escape sequences (CSI, OSC, and single-character escapes), for output handed to agents. */
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[\u001b\u009b][[\]()#;?]*(?:\d{1,4}(?:[;:]\d{0,4})*)?[\dA-PR-TZcf-nq-uy=><~]|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}
