import type { ComponentChildren } from 'preact';
import { ErrorAnswer } from '@svc/common/error-answer';

/** An error as the API answered it (an ErrorAnswer): its code and message, and the request id to quote to an operator. */
export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const api = error instanceof ErrorAnswer ? error : null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div class="error" role="alert">
      <strong>{api?.code ?? (error as { code?: unknown } | null)?.code?.toString() ?? 'Error'}</strong> {message}
      {api?.requestId && (
        <div class="request-id">
          Request id: <code>{api.requestId}</code>
        </div>
      )}
      {onRetry && (
        <button type="button" class="secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children && <p>{children}</p>}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}
