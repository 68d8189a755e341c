import type { BatchItem, DeviceStatus } from '../api/types';
import { StatusBadge } from '../components/feedback';
import { formatLastSeen, formatUptime } from '../format';

export interface DeviceError {
  message: string;
  code: string;
}

export interface ExecOutcome {
  chunks: { stream: 'stdout' | 'stderr'; data: string }[];
  exit?: { code: number; timedOut: boolean };
  error?: DeviceError;
}

function ItemError({ error }: { error: DeviceError }) {
  return (
    <span class="item-error" data-code={error.code}>
      <strong>{error.code}</strong> {error.message}
    </span>
  );
}

/** device_status per device: status, health, uptime and last contact, or that device's error with its code. */
export function BatchStatusTable({ items, names }: { items: BatchItem<DeviceStatus>[]; names: Map<string, string> }) {
  return (
    <div class="table-wrap">
      <table class="batch-status" aria-label="Batch status">
        <thead>
          <tr>
            <th scope="col">Device</th>
            <th scope="col">Status</th>
            <th scope="col">Health</th>
            <th scope="col">Uptime</th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.device} data-batch-device={item.device}>
              <td data-label="Device">{names.get(item.device) ?? item.device}</td>
              {'error' in item ? (
                <td data-label="Error" colSpan={4}>
                  <ItemError error={{ message: item.error, code: item.code }} />
                </td>
              ) : (
                <>
                  <td data-label="Status" data-status={item.status}>
                    <StatusBadge status={item.status} />
                  </td>
                  <td data-label="Health">{item.health}</td>
                  <td data-label="Uptime">{formatUptime(item.status === 'online' ? item.uptime : null)}</td>
                  <td data-label="Last seen">{formatLastSeen(item.last_seen)}</td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** device_exec per device: its output (text, stderr marked), its exit code, or its error with the code. */
export function BatchExecTable({ devices, outcomes, names }: { devices: string[]; outcomes: Map<string, ExecOutcome>; names: Map<string, string> }) {
  return (
    <div class="table-wrap">
      <table class="batch-exec" aria-label="Batch exec">
        <thead>
          <tr>
            <th scope="col">Device</th>
            <th scope="col">Exit code</th>
            <th scope="col">Output</th>
          </tr>
        </thead>
        <tbody>
          {devices.map((device) => {
            const outcome = outcomes.get(device);
            return (
              <tr key={device} data-batch-device={device}>
                <td data-label="Device">{names.get(device) ?? device}</td>
                <td data-label="Exit code" data-exit-code={outcome?.exit?.code}>
                  {outcome?.exit ? `${outcome.exit.code}${outcome.exit.timedOut ? ' (timed out)' : ''}` : outcome?.error ? '—' : '…'}
                </td>
                <td data-label="Output">
                  {outcome && outcome.chunks.length > 0 && (
                    <pre class="output batch-output" tabIndex={0}>
                      {outcome.chunks.map((chunk, i) => (
                        <span key={i} class={chunk.stream}>
                          {chunk.data}
                        </span>
                      ))}
                    </pre>
                  )}
                  {outcome?.error && <ItemError error={outcome.error} />}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
