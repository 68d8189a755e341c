import { DeployJobsResult } from '@svc/common';
import { SvcCommand } from '../base-command';
import { paramArg, stringFlag } from '../catalog-flags';
import type { SpecType } from '../deploy/spec-loader';
import { deploymentFlag, deviceArg } from '../flags';
import { withSpinner } from '../forward/wait-spinner';
import { escapeTerminal } from '../output/terminal-text';

export default class Deploy extends SvcCommand<typeof Deploy> {
  static override summary = 'Deploy a compose file, a run-spec job or a deployment document to a device.';
  static override description = `The file is read on this machine and the files it references are sent with it (docs/runspec.md). --type auto decides from the file's root: services: is a compose file (one job), jobs: a deployment document (it becomes the whole deployment, rollback policy included), anything else one run-spec job. A compose file or a run-spec job is added to the deployment, or replaces the job with its id.

Without --deployment the jobs go into the active deployment, which the device then runs; a device without one gets a new deployment, made active. A bad file is refused before anything is sent, naming its line and field (exit 2).`;
  static override examples = [
    '<%= config.bin %> deploy edge-1 web.yaml',
    '<%= config.bin %> deploy edge-1 shop/docker-compose.yml --name shop',
    '<%= config.bin %> deploy edge-1 release.yaml --type deployment --deployment 3f2a9c1e-…',
    '<%= config.bin %> deploy edge-1 web.yaml --json',
  ];
  static override args = {
    device: deviceArg('device_deploy'),
    file: paramArg('device_deploy', 'file', { description: 'a compose file, a run-spec job or a deployment document (YAML)' }),
  };
  static override flags = {
    type: stringFlag('device_deploy', 'spec_type', { description: 'what the file is (auto: from its root keys)', aliases: ['spec-type'] }),
    name: stringFlag('device_deploy', 'name', { description: "a compose file's or single job's job id; a deployment document's display name" }),
    deployment: deploymentFlag('device_deploy'),
  };

  async run(): Promise<DeployJobsResult> {
    const { device, file } = this.args;
    const input = { device, file, spec_type: this.flags.type as SpecType, name: this.flags.name, deployment_id: this.flags.deployment };
    const { request, result } = await withSpinner('Deploying', this.jsonEnabled(), () => this.runner.deploy(input));
    const jobs = request.jobs.map((job) => job.id).join(', ') || 'no jobs';
    const how = request.mode === 'replace' ? ', replacing its jobs' : '';
    this.human(`Deployed ${escapeTerminal(jobs)} to ${escapeTerminal(device)}: deployment ${result.deployment_id}${how}.`);
    this.note(`Watch it with: ${this.config.bin} deployments status ${escapeTerminal(device)}${this.flags.deployment ? ` --deployment ${result.deployment_id}` : ''}`);
    return result;
  }
}
