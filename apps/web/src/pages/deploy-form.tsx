import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { deploy } from '../api/deployments';
import { ActionResult } from '../components/action-result';
import { useAction } from '../components/use-action';

/**
 * Deploys a DeployRequest (docs/runspec.md) through POST /devices/{device}/deployments/jobs, the
 * route `svc deploy` sends to. The route takes the request with its jobs normalized; turning a
 * run-spec YAML into one is the CLI's work (`svc deploy`), which the browser bundle does not carry.
 */
export function DeployForm({ api, device, onDeployed }: { api: ApiClient; device: string; onDeployed: () => void }) {
  const [body, setBody] = useState('');
  const action = useAction();

  function submit(event: Event) {
    event.preventDefault();
    void action.run(
      async () => {
        let request: unknown;
        try {
          request = JSON.parse(body);
        } catch (error) {
          throw new Error(`Not JSON: ${(error as Error).message}`);
        }
        return deploy(api, device, request);
      },
      (answer) => `Deployed into ${answer.deployment_id}.`,
      onDeployed,
    );
  }

  return (
    <form class="deploy-form" onSubmit={submit}>
      <label for="deploy-request">Deploy request (JSON: {'{"mode": "merge" | "replace", "jobs": [...], "deployment_id"?, "rollback"?, "name"?}'})</label>
      <textarea id="deploy-request" rows={8} spellcheck={false} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
      <button type="submit" disabled={action.busy || body.trim() === ''}>
        Deploy
      </button>
      <ActionResult action={action} />
    </form>
  );
}
