import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { deploy } from '../api/deployments';
import { ActionResult } from '../components/action-result';
import { useAction } from '../components/use-action';

/**
 * Deploys a run-spec or a deployment document (the YAML `svc deploy` reads, docs/runspec.md), or a
 * DeployRequest as JSON, through POST /devices/{device}/deployments/jobs, the route `svc deploy`
 * sends to. A file picked is read into the text box, so what is sent is what is shown.
 */
export function DeployForm({ api, device, onDeployed }: { api: ApiClient; device: string; onDeployed: () => void }) {
  const [body, setBody] = useState('');
  const [file, setFile] = useState<string | undefined>(undefined);
  const action = useAction();

  function submit(event: Event) {
    event.preventDefault();
    void action.run(
      async () => {
        // The YAML parser and the conversion load with the first deploy, not with every page.
        const { deployRequestFromText } = await import('./deploy-request');
        return deploy(api, device, await deployRequestFromText(body, file));
      },
      (answer) => `Deployed into ${answer.deployment_id}.`,
      onDeployed,
    );
  }

  async function pick(input: HTMLInputElement) {
    const picked = input.files?.[0];
    if (!picked) return;
    setBody(await picked.text());
    setFile(picked.name);
  }

  return (
    <form class="deploy-form" onSubmit={submit}>
      <label for="deploy-spec">Run-spec (YAML, as for svc deploy: one job, or a deployment document with jobs:), or a deploy request as JSON</label>
      <textarea
        id="deploy-spec"
        rows={10}
        spellcheck={false}
        value={body}
        onInput={(e) => {
          setBody(e.currentTarget.value);
          setFile(undefined);
        }}
      />
      <label class="file-pick">
        Or read a file: <input type="file" accept=".yaml,.yml,.json" onChange={(e) => void pick(e.currentTarget)} />
      </label>
      <button type="submit" disabled={action.busy || body.trim() === ''}>
        Deploy
      </button>
      <ActionResult action={action} />
    </form>
  );
}
