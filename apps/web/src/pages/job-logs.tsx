import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { jobLogs } from '../api/deployments';
import { ErrorBox } from '../components/feedback';

/**
 * A job's log from the device (GET …/jobs/{job}/logs): the last 100 lines, and with "Follow" the
 * answer stays open and new lines appear as the job writes them (as `svc deploy logs --follow`).
 * Closing the viewer, or unticking Follow, ends the request, which ends the device's stream.
 */
export function JobLogs({ api, device, job, onClose }: { api: ApiClient; device: string; job: string; onClose: () => void }) {
  const [follow, setFollow] = useState(true);
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [open, setOpen] = useState(true);
  const out = useRef<HTMLPreElement>(null);

  useEffect(() => {
    const controller = new AbortController();
    setText('');
    setError(null);
    setOpen(true);
    jobLogs(api, device, job, follow, (chunk) => setText((t) => t + chunk), controller.signal)
      .catch((e: unknown) => !controller.signal.aborted && setError(e))
      .finally(() => !controller.signal.aborted && setOpen(false));
    return () => controller.abort();
  }, [device, job, follow]);

  useEffect(() => {
    if (out.current) out.current.scrollTop = out.current.scrollHeight;
  }, [text]);

  return (
    <div class="logs" aria-labelledby="logs-title">
      <div class="actions">
        <h3 id="logs-title">Log of {job}</h3>
        <label>
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} /> Follow
        </label>
        <span class="muted" role="status">
          {open ? (follow ? 'following…' : 'loading…') : 'end of log'}
        </span>
        <button type="button" class="secondary small" onClick={onClose}>
          Close log
        </button>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      <pre class="output" ref={out} aria-label={`Log of ${job}`} tabIndex={0}>
        {text || (open ? '' : '(empty)')}
      </pre>
    </div>
  );
}
