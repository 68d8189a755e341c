import { useRef, useState } from 'preact/hooks';
import { batchExec, batchStatus } from '../api/batch';
import type { ApiClient } from '../api/client';
import type { BatchItem, DeviceStatus } from '../api/types';
import { ErrorBox } from '../components/feedback';
import { splitCommand } from '../format';
import { BatchExecTable, BatchStatusTable, ExecOutcome } from './batch-results';

type Result =
  | { kind: 'status'; items: BatchItem<DeviceStatus>[] }
  | { kind: 'exec'; devices: string[]; outcomes: Map<string, ExecOutcome>; running: boolean };

/**
 * Batch status and batch exec on the selected devices (device_status and device_exec with
 * `devices`). The server decides per device: a device the caller may not exec on, or an offline
 * one, comes back as that device's error and is shown as such; the page copies no access rule.
 */
export function BatchActions({ api, devices, names }: { api: ApiClient; devices: string[]; names: Map<string, string> }) {
  const [line, setLine] = useState('');
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const none = devices.length === 0;

  async function status() {
    setBusy(true);
    setError(null);
    try {
      setResult({ kind: 'status', items: await batchStatus(api, devices) });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  async function exec(event: Event) {
    event.preventDefault();
    let command: string[];
    try {
      command = splitCommand(line);
    } catch (failure) {
      setError(failure);
      return;
    }
    if (command.length === 0 || none) return;
    const controller = new AbortController();
    abort.current = controller;
    const targets = [...devices];
    const outcomes = new Map<string, ExecOutcome>(targets.map((d) => [d, { chunks: [] }]));
    const show = (running: boolean) => setResult({ kind: 'exec', devices: targets, outcomes: new Map(outcomes), running });
    const update = (device: string, change: (o: ExecOutcome) => ExecOutcome) => {
      outcomes.set(device, change(outcomes.get(device) ?? { chunks: [] }));
      show(true);
    };
    setBusy(true);
    setError(null);
    show(true);
    try {
      await batchExec(api, targets, command, {
        output: (device, stream, data) => update(device, (o) => ({ ...o, chunks: [...o.chunks, { stream, data }] })),
        exit: (device, code, timedOut) => update(device, (o) => ({ ...o, exit: { code, timedOut } })),
        error: (device, message, code) => (device === undefined ? setError(new Error(`${code}: ${message}`)) : update(device, (o) => ({ ...o, error: { message, code } }))),
      }, controller.signal);
    } catch (failure) {
      if (!controller.signal.aborted) setError(failure);
    } finally {
      show(false);
      setBusy(false);
    }
  }

  return (
    <div class="card batch" aria-labelledby="batch-title">
      <h2 id="batch-title">Batch actions</h2>
      <p class="hint" role="status" data-selected={devices.length}>
        {none ? 'Select devices in the table to run a batch action on them.' : `${devices.length} selected`}
      </p>
      <div class="actions">
        <button type="button" class="secondary" disabled={none || busy} onClick={status}>
          Batch status
        </button>
      </div>
      <form class="run" onSubmit={exec}>
        <label for="batch-command">Command for the selected devices</label>
        <input id="batch-command" name="batch-command" autoComplete="off" spellcheck={false} placeholder="uname -a" value={line} onInput={(e) => setLine(e.currentTarget.value)} />
        <button type="submit" disabled={none || busy}>
          Batch exec
        </button>
        {result?.kind === 'exec' && result.running && (
          <button type="button" class="secondary" onClick={() => abort.current?.abort()}>
            Stop
          </button>
        )}
      </form>
      {error ? <ErrorBox error={error} /> : null}
      {result?.kind === 'status' && <BatchStatusTable items={result.items} names={names} />}
      {result?.kind === 'exec' && <BatchExecTable devices={result.devices} outcomes={result.outcomes} names={names} />}
    </div>
  );
}
