import { useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { runCommand } from '../api/devices';
import { ErrorBox } from '../components/feedback';
import { splitCommand } from '../format';

interface Chunk {
  stream: 'stdout' | 'stderr';
  data: string;
}

interface Run {
  chunks: Chunk[];
  exit?: { code: number; timedOut: boolean };
  error?: unknown;
  running: boolean;
}

/** Runs a command through POST /api/exec and shows its output as it streams, then the exit code. */
export function RunCommand({ api, device }: { api: ApiClient; device: string }) {
  const [line, setLine] = useState('');
  const [run, setRun] = useState<Run | null>(null);
  const abort = useRef<AbortController | null>(null);

  async function start(event: Event) {
    event.preventDefault();
    let command: string[];
    try {
      command = splitCommand(line);
    } catch (error) {
      setRun({ chunks: [], error, running: false });
      return;
    }
    if (command.length === 0) return;
    const controller = new AbortController();
    abort.current = controller;
    let state: Run = { chunks: [], running: true };
    const update = (next: Partial<Run>) => setRun((state = { ...state, ...next }));
    update({});
    try {
      await runCommand(api, device, command, {
        output: (stream, data) => update({ chunks: [...state.chunks, { stream, data }] }),
        exit: (code, timedOut) => update({ exit: { code, timedOut } }),
        error: (message, code) => update({ error: new Error(`${code}: ${message}`) }),
      }, controller.signal);
    } catch (error) {
      if (!controller.signal.aborted) update({ error });
    } finally {
      update({ running: false });
    }
  }

  return (
    <div class="card" aria-labelledby="run-title">
      <h2 id="run-title">Run a command</h2>
      <form class="run" onSubmit={start}>
        <label for="command">Command</label>
        <input id="command" name="command" autoComplete="off" spellcheck={false} placeholder="uname -a" value={line} onInput={(e) => setLine(e.currentTarget.value)} />
        <button type="submit" disabled={run?.running}>
          Run
        </button>
        {run?.running && (
          <button type="button" class="secondary" onClick={() => abort.current?.abort()}>
            Stop
          </button>
        )}
      </form>
      {run?.error ? <ErrorBox error={run.error} /> : null}
      {run && (run.chunks.length > 0 || run.exit) && (
        <pre class="output" aria-label="Output" tabIndex={0}>
          {run.chunks.map((chunk, i) => (
            <span key={i} class={chunk.stream}>
              {chunk.data}
            </span>
          ))}
        </pre>
      )}
      {run?.exit && (
        <p class={run.exit.code === 0 ? 'exit ok' : 'exit failed'} role="status" data-exit-code={run.exit.code}>
          Exit code {run.exit.code}
          {run.exit.timedOut ? ' (timed out)' : ''}
        </p>
      )}
    </div>
  );
}
