import { constants } from 'node:os';
import { SvcCommand } from '../base-command';
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

export default class Shell extends SvcCommand<typeof Shell> {
  static override summary = 'Open an interactive shell on a device.';
  static override description = `A login shell of the device user on a pseudo-terminal. When stdin is a terminal it is put in raw mode (Ctrl-C, Ctrl-D and the arrow keys go to the device) and resizing your window resizes the device's terminal. Input may also be piped: the shell reads it and gets Ctrl-D at its end.

svc exits with the shell's exit code (128 + the signal when a signal ended it). --json prints {exit_code, signal} when the shell ended, and the terminal's output goes to stderr instead of stdout.`;
  static override examples = ['<%= config.bin %> shell edge-1', "printf 'uptime\\nexit\\n' | <%= config.bin %> shell edge-1", '<%= config.bin %> shell edge-1 --json 2>/dev/null'];
  static override args = { device: deviceArg };

  async run(): Promise<ShellExit> {
    const out = this.jsonEnabled() ? process.stderr : process.stdout;
    const size = () => (out.isTTY ? { cols: out.columns || DEFAULT_SIZE.cols, rows: out.rows || DEFAULT_SIZE.rows } : DEFAULT_SIZE);
    const session = await withSpinner('Connecting', this.jsonEnabled(), async () =>
      openShell(await this.client.streams(), this.args.device, { ...size(), term: process.env.TERM || undefined }),
    );
    const ended = new Promise<void>((resolve) => session.output.once('end', resolve).once('close', resolve));
    session.output.pipe(out, { end: false });
    const detach = attachInput(session);
    const resize = () => session.resize(size().cols, size().rows);
    out.on('resize', resize);
    try {
      const result = await session.exit;
      await ended;
      process.exitCode = result.exit_code ?? 128 + ((result.signal && constants.signals[result.signal as NodeJS.Signals]) || 0);
      return result;
    } finally {
      out.off('resize', resize);
      detach();
    }
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
