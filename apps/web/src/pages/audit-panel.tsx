import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { auditLogs } from '../api/access';
import { Empty, ErrorBox, Loading } from '../components/feedback';
import { useLoad } from '../components/use-load';

const MAX = 200;

/** A date field's day as an ISO instant: the start of that day (UTC), or of the next one for an inclusive "to". */
function dayStart(day: string, next = false): string | undefined {
  if (!day) return undefined;
  const at = new Date(`${day}T00:00:00Z`);
  if (next) at.setUTCDate(at.getUTCDate() + 1);
  return at.toISOString();
}

/** The device's audit log (GET …/audit-logs), newest first as the server sorts it, between two days (UTC). */
export function AuditPanel({ api, device }: { api: ApiClient; device: string }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [range, setRange] = useState({ from: '', to: '' });
  const logs = useLoad(() => auditLogs(api, device, { since: dayStart(range.from), until: dayStart(range.to, true), max: MAX }), `${device}:${range.from}:${range.to}`);

  return (
    <div class="card" aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setRange({ from, to });
          logs.reload();
        }}
      >
        <label>
          From (UTC)
          <input type="date" name="audit-from" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        </label>
        <label>
          To (UTC, inclusive)
          <input type="date" name="audit-to" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </label>
        <button type="submit">Show</button>
      </form>
      {logs.error ? <ErrorBox error={logs.error} onRetry={logs.reload} /> : null}
      {!logs.data && logs.loading && <Loading what="the audit log" />}
      {logs.data && logs.data.logs.length === 0 && <Empty title="No entries in this range." />}
      {logs.data && logs.data.logs.length > 0 && (
        <div class="table-wrap">
          <table aria-label="Audit log">
            <thead>
              <tr>
                <th scope="col">Time (UTC)</th>
                <th scope="col">User</th>
                <th scope="col">Action</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {logs.data.logs.map((entry, i) => (
                <tr key={`${entry.timestamp}:${i}`} data-action={entry.action}>
                  <td data-label="Time">{entry.timestamp.replace('T', ' ').slice(0, 19)}</td>
                  <td data-label="User">{entry.user}</td>
                  <td data-label="Action">{entry.action}</td>
                  <td data-label="Details" class="details">
                    {entry.details}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {logs.data && logs.data.logs.length === MAX && <p class="muted">The newest {MAX} entries; narrow the range to see older ones.</p>}
    </div>
  );
}
