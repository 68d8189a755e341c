import { Flags, Interfaces } from '@oclif/core';

/** The parts of oclif's help for one `svc runtime` command. */
export interface RuntimeHelp {
  usage: string[];
  description: string;
  /** For the FLAGS section only: the runtime parses its own arguments (runtime-passthrough.ts). */
  flags: Interfaces.FlagInput;
}

/** `  --name <value>  what it does`: the value placeholder is optional, the gap two spaces or more. */
const OPTION_LINE = /^ {2}--([a-z][a-z0-9-]*)(?: (\S+))? {2,}(\S.*)$/;
/** `enable   installs …`: a word, then the gap of a definition list. */
const DEFINITION = /^(\S+) {2,}(\S.*)$/;

/**
 * oclif help from the runtime's own usage text (RUN_USAGE, SERVICE_USAGE, LOGOUT_USAGE: the one
 * place the runtime's options are described). That text is laid out for the runtime's own
 * `--help`, with lines broken and aligned by hand; oclif wraps each line again at the terminal's
 * width, so handed over as it is the broken lines came out ragged and the aligned continuations
 * at the left margin. Here the `Usage:` block becomes oclif's usage (the lines of `verb`: several
 * verbs share a text), the `Options:` block flags (which oclif lays out with hanging indents at
 * any width), and every other block paragraphs of one line each (a definition list's entry
 * becomes `term: text`).
 */
export function runtimeHelp(verb: string, text: string): RuntimeHelp {
  const help: RuntimeHelp = { usage: [], description: '', flags: {} };
  const paragraphs: string[] = [];
  const command = `svc runtime ${verb}`;
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n');
    // oclif prints each usage line after "$ svc runtime <verb>": this verb's lines, without that.
    if (lines[0].startsWith('Usage: ')) {
      const forms = lines.map((line) => line.replace(/^Usage: /, '').trim());
      help.usage = forms.filter((form) => form === command || form.startsWith(`${command} `)).map((form) => form.slice(command.length).trim());
    } else if (lines[0] === 'Options:') help.flags = optionFlags(lines.slice(1));
    else paragraphs.push(joinedLines(lines).join('\n'));
  }
  help.description = paragraphs.join('\n\n');
  return help;
}

function optionFlags(lines: string[]): RuntimeHelp['flags'] {
  const options: { name: string; value?: string; text: string }[] = [];
  for (const line of lines) {
    const option = OPTION_LINE.exec(line);
    if (option) options.push({ name: option[1], value: option[2], text: option[3] });
    else if (options.length > 0 && /^\s/.test(line)) options[options.length - 1].text += ` ${line.trim()}`;
    else throw new Error(`The runtime's option line is not understood: ${JSON.stringify(line)}`);
  }
  return Object.fromEntries(
    options.map(({ name, value, text }) => [name, value ? Flags.string({ description: text, helpValue: value }) : Flags.boolean({ description: text })]),
  );
}

/**
 * The block's lines put back together: an indented line, or one after a line that does not end
 * a sentence, continues the line before it.
 */
function joinedLines(lines: string[]): string[] {
  const joined: string[] = [];
  for (const line of lines) {
    const previous = joined[joined.length - 1];
    if (previous !== undefined && (/^\s/.test(line) || !/[.:]$/.test(previous))) joined[joined.length - 1] = `${previous} ${line.trim()}`;
    else joined.push(line.trim());
  }
  return joined.map((line) => line.replace(DEFINITION, '$1: $2'));
}
