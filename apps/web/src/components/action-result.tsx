import type { Action } from './use-action';
import { ErrorBox } from './feedback';

/** What the last write of a panel did: its notice, or the API's error with its request id. */
export function ActionResult({ action }: { action: Action }) {
  return (
    <>
      {action.notice && (
        <p class="notice" role="status">
          {action.notice}
        </p>
      )}
      {action.error ? <ErrorBox error={action.error} /> : null}
    </>
  );
}
