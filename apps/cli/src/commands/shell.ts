import { constants } from 'node:os';
import { DomainError } from '@svc/common';
import { SvcCommand } from '../base-command';
import { ConnectionLostError, EXIT } from '../exit-codes';
import { escapeTerminal } from '../output/terminal-text';
import { deviceArg } from '../flags';
import { withSpinner } from '../forward/wait-spinner';
import { openShell, ShellExit, ShellSession } from '../sdk/shell-session';

/** Size used when the output is no terminal (a pipe): what a classic terminal has. */
const DEFAULT_SIZE = { cols: 80, rows: 24 };
/** Ctrl-D: a piped script that ended without `exit` ends the shell the way a user would. */
const END_OF_INPUT = '\x04';
/**
 * Piped input can reach the device's terminal before an interactive shell has switched it to raw
 * mode, and the terminal then turns that early Ctrl-D into a NUL byte instead of an end of file.
 * Repeating it until the shell exits is what a user at a prompt would do, and is harmless: a shell
 * at its prompt takes the first one that arrives in time as the end of its input.
 */
const END_OF_INPUT_REPEAT_MS = 1000;
const LINE_FEED = 0x0a;
/** How a shell ends when its terminal is hung up: the device's end of the connection closed. */
const HANGUP = 'SIGHUP';
/** The session's connection was lost: the server (or the path to it), or the device behind it. */
const LOST = new Set(['SERVER_UNREACHABLE', 'DEVICE_OFFLINE']);

export default class Shell extends SvcCommand<typeof Shell> {
  static override summary = 'Open an interactive shell on a device.';
  static override description = `A login shell of the device user on a pseudo-terminal. When stdin is a terminal it is put in raw mode (Ctrl-C, Ctrl-D and the arrow keys go to the device) and resizing your window resizes the device's terminal. Input may also be piped: the shell reads it and gets Ctrl-D at its end.

svc exits with the shell's exit code (128 + the signal when a signal ended it). When the connection ends under the session (the device's runtime stops, the device or the server goes away), svc says so on a line of its own ("Connection to <device> closed.") and exits 255, as ssh does. --json prints {exit_code, signal} when the shell ended, and the terminal's output goes to stderr instead of stdout.`;
  static override examples = ['<%= config.bin %> shell edge-1', "printf 'uptime\\nexit\\n' | <%= config.bin %> shell edge-1", '<%= config.bin %> shell edge-1 --json 2>/dev/null'];
  static override args = { device: deviceArg('device_exec.shell') };

  async run(): Promise<ShellExit> {
    const { device } = this.args;
    const out = this.jsonEnabled() ? process.stderr : process.stdout;
    const size = () => (out.isTTY ? { cols: out.columns || DEFAULT_SIZE.cols, rows: out.rows || DEFAULT_SIZE.rows } : DEFAULT_SIZE);
    const session = await withSpinner('Connecting', this.jsonEnabled(), async () =>
      openShell(await this.client.streams(), device, { ...size(), term: process.env.TERM || undefined }),
    );
    const ended = new Promise<void>((resolve) => session.output.once('end', resolve).once('close', resolve));
    let lineOpen = false;
    session.output.on('data', (chunk: Buffer) => (lineOpen = chunk.length > 0 ? chunk[chunk.length - 1] !== LINE_FEED : lineOpen));
    session.output.pipe(out, { end: false });
    const detach = attachInput(session);
    const resize = () => session.resize(size().cols, size().rows);
    out.on('resize', resize);
    let outcome: ShellExit | Error;
    try {
      outcome = await session.exit;
      await ended;
    } catch (error) {
      outcome = error as Error;
    } finally {
      out.off('resize', resize);
      detach();
    }
    // The terminal is restored; what svc says about the end starts on a line of its own, not after the remote prompt.
    const freshLine = () => lineOpen && process.stderr.write('\n');
    if (outcome instanceof DomainError && LOST.has(outcome.code)) {
      freshLine();
      throw new ConnectionLostError(outcome.code, outcome.code === 'DEVICE_OFFLINE' ? `Connection to ${device} closed: ${outcome.message}` : outcome.message);
    }
    if (outcome instanceof Error) throw outcome;
    if (outcome.signal === HANGUP) {
      // The terminal was hung up on the device's side: its runtime stopped or cut the session.
      freshLine();
      process.stderr.write(`Connection to ${escapeTerminal(device)} closed.\n`);
      process.exitCode = EXIT.CONNECTION_LOST;
      return outcome;
    }
    process.exitCode = outcome.exit_code ?? 128 + ((outcome.signal && constants.signals[outcome.signal as NodeJS.Signals]) || 0);
    return outcome;
  }
}

/** Keystrokes (or piped input) into the session, under its flow control; returns the undo. */
function attachInput(session: ShellSession): () => void {
  const stdin = process.stdin;
  const raw = stdin.isTTY === true;
  if (raw) stdin.setRawMode(true);
  const onData = (chunk: Buffer) => {
    if (!session.write(chunk)) {
      stdin.pause();
      session.input.once('drain', () => stdin.resume());
    }
  };
  let repeat: NodeJS.Timeout | undefined;
  const onEnd = () => {
    session.write(END_OF_INPUT);
    repeat = setInterval(() => session.write(END_OF_INPUT), END_OF_INPUT_REPEAT_MS).unref();
  };
  stdin.on('data', onData);
  if (!raw) stdin.once('end', onEnd);
  return () => {
    clearInterval(repeat);
    stdin.off('data', onData).off('end', onEnd);
    if (raw) stdin.setRawMode(false);
    stdin.pause();
    // Nothing more is read; an open stdin would keep the process alive.
    stdin.destroy();
  };
}
