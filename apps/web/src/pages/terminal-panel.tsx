import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorFromFrame } from '@svc/common/error-answer';
import type { ApiClient } from '../api/client';
import { ErrorBox } from '../components/feedback';
import { withConstructedStyles } from '../terminal/constructed-styles';
import { styleAttributesThroughCssom } from '../terminal/cssom-style-attributes';
import type { ExitBody } from '../terminal/frames';
import { ShellSocket } from '../terminal/shell-socket';

/**
 * The key that switches what Tab does in the terminal, as VS Code's "Tab moves focus" (Ctrl+M):
 * inside a terminal Tab belongs to the shell (completion), so a keyboard user needs a way out.
 * Ctrl+M is a carriage return to a shell, which Enter sends anyway.
 */
const isTabFocusToggle = (event: KeyboardEvent) => event.ctrlKey && !event.altKey && !event.metaKey && event.key.toLowerCase() === 'm';

type Phase = { name: 'idle' } | { name: 'connecting' } | { name: 'open' } | { name: 'exited'; exit: ExitBody } | { name: 'closed'; why: string } | { name: 'failed'; error: unknown };

const THEME = { background: '#0f1720', foreground: '#e6edf3', cursor: '#e6edf3' };

function describeExit(exit: ExitBody): string {
  if (exit.signal) return `The shell was ended by ${exit.signal}.`;
  return `The shell exited with code ${exit.exit_code ?? '?'}.`;
}

/**
 * The device's login shell in xterm.js over the terminal bridge (docs/dashboard.md, "Terminal"):
 * keystrokes as STDIN frames (Ctrl-C is the byte a terminal sends; the PTY makes it SIGINT),
 * the size as RESIZE frames whenever the panel's size changes, an Interrupt button for a SIGINT
 * without a keyboard, the exit code when the shell ends, and Reconnect (a new ticket, a new shell).
 */
export function TerminalPanel({ api, device }: { api: ApiClient; device: string }) {
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const socket = useRef<ShellSocket | null>(null);
  const [phase, setPhase] = useState<Phase>({ name: 'idle' });
  const [attempt, setAttempt] = useState(0);
  const [tabMovesFocus, setTabMovesFocus] = useState(false);
  const tabMoves = useRef(false);
  tabMoves.current = tabMovesFocus;

  useEffect(() => {
    const terminal = new Terminal({ cursorBlink: true, fontSize: 14, scrollback: 5000, theme: THEME });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    const restoreStyleAttributes = styleAttributesThroughCssom(document);
    const dropStyles = withConstructedStyles(document, () => terminal.open(host.current!));
    term.current = terminal;
    terminal.textarea?.setAttribute('aria-describedby', 'terminal-keys');
    terminal.attachCustomKeyEventHandler((event) => {
      if (isTabFocusToggle(event)) {
        if (event.type === 'keydown') setTabMovesFocus((on) => !on);
        event.preventDefault();
        return false;
      }
      // false: xterm leaves the key to the browser, whose Tab moves the focus.
      return !(tabMoves.current && event.key === 'Tab' && !event.ctrlKey && !event.altKey && !event.metaKey);
    });
    const typed = terminal.onData((data) => socket.current?.type(data));
    const resized = terminal.onResize(({ cols, rows }) => socket.current?.resize(cols, rows));
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(host.current!);
    fit.fit();
    return () => {
      observer.disconnect();
      typed.dispose();
      resized.dispose();
      terminal.dispose();
      dropStyles();
      restoreStyleAttributes();
      term.current = null;
    };
  }, []);

  useEffect(() => {
    // A shell (and its audit entry) only when the user asks for one, not on every visit of the page.
    if (attempt === 0) return;
    const terminal = term.current!;
    let live = true;
    terminal.reset();
    setPhase({ name: 'connecting' });
    ShellSocket.open(api, device, { cols: terminal.cols, rows: terminal.rows }, {
      output: (bytes) => terminal.write(bytes),
      exit: (exit) => live && setPhase({ name: 'exited', exit }),
      error: (body) => live && setPhase({ name: 'failed', error: errorFromFrame(body, 'The session failed') }),
      closed: (code, reason, exited) => {
        if (live && !exited) setPhase((now) => (now.name === 'failed' ? now : { name: 'closed', why: `${reason || 'connection lost'} (${code})` }));
        socket.current = null;
      },
    }).then(
      (opened) => {
        if (!live) return opened.close();
        socket.current = opened;
        setPhase((now) => (now.name === 'connecting' ? { name: 'open' } : now));
        terminal.focus();
      },
      (error: unknown) => live && setPhase({ name: 'failed', error }),
    );
    return () => {
      live = false;
      socket.current?.close();
      socket.current = null;
    };
  }, [api, device, attempt]);

  const ended = phase.name === 'exited' || phase.name === 'closed' || phase.name === 'failed';
  const canConnect = ended || phase.name === 'idle';
  return (
    <div class="card" aria-labelledby="terminal-title">
      <div class="panel-head">
        <h2 id="terminal-title">Terminal</h2>
        <span class="muted" data-terminal-state={phase.name}>
          {phase.name === 'idle' ? 'Not connected' : phase.name === 'connecting' ? 'Connecting…' : phase.name === 'open' ? 'Connected' : 'Ended'}
        </span>
        <button type="button" class="secondary small" disabled={phase.name !== 'open'} onClick={() => socket.current?.interrupt()} title="Send SIGINT to the running command">
          Interrupt
        </button>
        <button type="button" class={attempt === 0 ? 'small' : 'secondary small'} disabled={!canConnect} onClick={() => setAttempt((n) => n + 1)}>
          {attempt === 0 ? 'Open terminal' : 'Reconnect'}
        </button>
      </div>
      <p class="terminal-keys" id="terminal-keys">
        {tabMovesFocus ? 'Tab and Shift+Tab move the focus out of the terminal.' : 'Tab goes to the shell.'} <kbd>Ctrl</kbd>+<kbd>M</kbd> in the terminal, or this button, switches:{' '}
        <button type="button" class="secondary small" aria-pressed={tabMovesFocus} onClick={() => setTabMovesFocus((on) => !on)}>
          Tab moves focus
        </button>
      </p>
      <div class="terminal-host" ref={host} aria-label="Terminal" />
      {phase.name === 'exited' && (
        <p class={phase.exit.exit_code === 0 ? 'exit ok' : 'exit failed'} role="status" data-shell-exit-code={phase.exit.exit_code ?? ''}>
          {describeExit(phase.exit)}
        </p>
      )}
      {phase.name === 'closed' && (
        <p class="exit failed" role="status">
          The connection closed: {phase.why}.
        </p>
      )}
      {phase.name === 'failed' && <ErrorBox error={phase.error} />}
    </div>
  );
}
