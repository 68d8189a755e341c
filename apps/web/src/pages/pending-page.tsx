import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { approve, listDevices, reject } from '../api/devices';
import type { DeviceListItem } from '../api/types';
import { Empty, ErrorBox, Loading } from '../components/feedback';
import { useLiveReload } from '../components/live';
import { useFocusOnMount } from '../components/use-focus';
import { useLoad } from '../components/use-load';

const PAGE_SIZE = 100;
/** A request arrives or is decided (here or elsewhere): the list reloads. */
const REGISTRATION_EVENTS = ['registration.pending', 'registration.approved', 'registration.rejected'];

/**
 * Pending registration requests with what an approver must compare: the fingerprint the device
 * shows (`svc runtime run` prints it), and a warning when the device id is registered with another key.
 */
export function PendingPage({ api }: { api: ApiClient }) {
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const pending = useLoad(() => listDevices(api, { status: 'pending', limit: PAGE_SIZE, cursor }), cursor ?? '');
  useLiveReload(REGISTRATION_EVENTS, pending.reload);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');

  async function act(what: string, work: () => Promise<unknown>) {
    setBusy(true);
    setActionError(null);
    try {
      await work();
      setNotice(what);
      setSelected(new Set());
      setConfirming(null);
    } catch (error) {
      setActionError(error);
    } finally {
      setBusy(false);
      pending.reload();
    }
  }

  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  const items = pending.data?.items ?? [];

  return (
    <section aria-labelledby="pending-title">
      <h1 id="pending-title">Pending registrations</h1>
      <p class="hint">Approve a device only when the fingerprint below is the one the device itself shows.</p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {actionError ? <ErrorBox error={actionError} /> : null}
      {pending.error ? <ErrorBox error={pending.error} onRetry={pending.reload} /> : null}
      {!pending.data && pending.loading && <Loading what="pending registrations" />}
      {pending.data && items.length === 0 && <Empty title="No registration is waiting.">New devices appear here when their runtime asks to join.</Empty>}
      {items.length > 0 && (
        <>
          <div class="toolbar">
            <button type="button" class="danger" disabled={busy || selected.size === 0} onClick={() => act(`Rejected ${selected.size} request(s).`, () => Promise.all([...selected].map((id) => reject(api, id))))}>
              Reject selected ({selected.size})
            </button>
          </div>
          <ul class="requests">
            {items.map((request) => (
              <Request
                key={request.request_id}
                request={request}
                selected={selected.has(request.request_id!)}
                confirming={confirming === request.request_id}
                busy={busy}
                onToggle={() => toggle(request.request_id!)}
                onApprove={() => setConfirming(request.request_id!)}
                onCancel={() => setConfirming(null)}
                onConfirm={() => act(`Approved ${request.hostname}.`, () => approve(api, request.request_id!))}
                onReject={() => act(`Rejected ${request.hostname}.`, () => reject(api, request.request_id!))}
              />
            ))}
          </ul>
          {pending.data?.next_cursor && (
            <button type="button" class="secondary" onClick={() => setCursor(pending.data!.next_cursor!)}>
              More requests
            </button>
          )}
        </>
      )}
    </section>
  );
}

interface RequestProps {
  request: DeviceListItem;
  selected: boolean;
  confirming: boolean;
  busy: boolean;
  onToggle(): void;
  onApprove(): void;
  onCancel(): void;
  onConfirm(): void;
  onReject(): void;
}

function Request({ request, selected, confirming, busy, onToggle, onApprove, onCancel, onConfirm, onReject }: RequestProps) {
  const id = request.request_id!;
  return (
    <li class="request" data-request={id}>
      <div class="request-head">
        <input type="checkbox" id={`select-${id}`} checked={selected} onChange={onToggle} aria-label={`Select ${request.hostname}`} />
        <label for={`select-${id}`} class="request-name">
          {request.hostname}
        </label>
        <span class="muted">{request.device_id}</span>
      </div>
      <dl class="facts">
        <dt>Fingerprint</dt>
        <dd>
          <code class="fingerprint">{request.fingerprint}</code>
        </dd>
        <dt>Platform</dt>
        <dd>{request.platform}</dd>
        <dt>Requested by</dt>
        <dd>{request.requester}</dd>
        <dt>Source address</dt>
        <dd>{request.source_address}</dd>
        <dt>Owner</dt>
        <dd>{request.owner}</dd>
      </dl>
      {request.key_mismatch && (
        <p class="warning" role="note">
          Key change: device {request.device_id} is registered with{' '}
          {request.registered_fingerprint ? <code>{request.registered_fingerprint}</code> : 'no recorded key'}. Approving gives it this new key; only its owner may.
        </p>
      )}
      {request.replaces && (
        <p class="warning" role="note">
          This request replaces the registered device {request.replaces.name} ({request.replaces.status}): approving cuts the old key off.
        </p>
      )}
      {confirming ? (
        <ConfirmApproval fingerprint={request.fingerprint} busy={busy} onConfirm={onConfirm} onCancel={onCancel} />
      ) : (
        <div class="actions">
          <button type="button" disabled={busy} onClick={onApprove}>
            Approve…
          </button>
          <button type="button" class="danger" disabled={busy} onClick={onReject}>
            Reject
          </button>
        </div>
      )}
    </li>
  );
}

/** Approval asks again with the fingerprint; the confirmation takes the keyboard's focus each time it shows (Enter approves). */
function ConfirmApproval({ fingerprint, busy, onConfirm, onCancel }: { fingerprint: string | undefined; busy: boolean; onConfirm: () => void; onCancel: () => void }) {
  const yes = useFocusOnMount<HTMLButtonElement>();
  return (
    <div class="confirm" role="group" aria-label="Confirm approval">
      <p>
        Does the device show <code class="fingerprint">{fingerprint}</code>?
      </p>
      <button type="button" ref={yes} disabled={busy} onClick={onConfirm}>
        Yes, approve
      </button>
      <button type="button" class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
