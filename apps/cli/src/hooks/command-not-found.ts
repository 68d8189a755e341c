import { Errors, Hook, Interfaces, loadHelpClass, toConfiguredId } from '@oclif/core';
import { escapeJsonControls } from '@svc/common';
import { closest } from 'fastest-levenshtein';
import { escapeTerminal } from '../output/terminal-text';

/** What a shell answers for a command that does not exist; oclif's not-found plugin uses it too. */
const COMMAND_NOT_FOUND_EXIT = 127;

/**
 * A mistyped command (`svc devcies list`). On a terminal, oclif's not-found plugin asks "Did you
 * mean devices list?" and runs the suggestion once confirmed. Without one (a script, a pipe)
 * nothing may wait for an answer: the suggestion is printed (under --json as svc's error
 * document) and svc exits 127, as a shell does.
 */
const hook: Hook.CommandNotFound = async function (options) {
  const [first, ...rest] = options.id.split(':');
  // `svc help [topic…]`, which other CLIs have: the help it asks for, not a far-fetched suggestion.
  if (first === 'help') return new (await loadHelpClass(options.config))(options.config).showHelp([...rest, ...(options.argv ?? [])]);
  const json = options.argv?.includes('--json') === true;
  if (process.stdin.isTTY && process.stdout.isTTY && !json) {
    const { default: askToRunSuggestion } = await import('@oclif/plugin-not-found');
    try {
      return await askToRunSuggestion.call(this, options);
    } catch (error) {
      // Declined: the plugin's own hint names `svc help`, which svc does not have.
      if (error instanceof Errors.ExitError || (error as Errors.CLIError).oclif?.exit !== COMMAND_NOT_FOUND_EXIT) throw error;
      process.stderr.write(`${helpHint(options)}\n`);
      return this.exit(COMMAND_NOT_FOUND_EXIT);
    }
  }
  const visible = options.config.commands.filter((command) => !command.hidden).flatMap((command) => [command.id, ...command.aliases]);
  const typed = toConfiguredId(options.id, options.config);
  const suggestion = visible.length > 0 ? ` Did you mean ${toConfiguredId(closest(options.id, visible), options.config)}?` : '';
  const message = `${typed} is not a ${options.config.bin} command.${suggestion}`;
  if (json) {
    process.stdout.write(`${escapeJsonControls(JSON.stringify({ error: { code: 'INVALID_INPUT', message, exit_code: COMMAND_NOT_FOUND_EXIT } }, null, 2))}\n`);
  } else {
    process.stderr.write(`Error: ${escapeTerminal(message)}\n${helpHint(options)}\n`);
  }
  return this.exit(COMMAND_NOT_FOUND_EXIT);
};

/** `svc <topic> --help` when the first word is a topic, `svc --help` otherwise. */
function helpHint(options: { id: string; config: Interfaces.Config }): string {
  const topic = options.id.split(':')[0];
  const scope = options.config.findTopic(topic) ? ` ${topic}` : '';
  return `Run ${options.config.bin}${scope} --help for a list of commands.`;
}

export default hook;
