import { DeployJobsResult, DeployRequest, EXEC_DEFAULT_TIMEOUT_SECS, InvalidInputError, OperationName, OperationResults } from '@svc/common';
import type { SpecType } from '../deploy/spec-loader';
import { dockerExec } from './docker-exec';
import { ANSWER_GRACE_MS } from './exec-batch';
import { ForwardSessionStore } from './forward-sessions';
import { approveWithoutReplacing } from './registration-review';
import { SvcClient } from './svc-client';

type Input = Record<string, unknown>;


/**
 * Every tool of the specification, by name, over the SDK: one implementation that `svc mcp`
 * calls by name and the oclif commands call through their typed wrappers. Inputs are the tool's
 * parameters as the spec names them; results are the tool's result shapes.
 */
export class OperationRunner {
  constructor(
    readonly client: SvcClient,
    readonly forwards: ForwardSessionStore,
  ) {}

  run<N extends OperationName>(name: N, input: Input): Promise<OperationResults[N]>;
  async run(name: OperationName, input: Input): Promise<unknown> {
    switch (name) {
      case 'devices_approve':
        return approveWithoutReplacing(this.client, String(input.device));
      case 'device_ls':
        return this.client.files().ls(String(input.path));
      case 'device_cp':
        return this.client.files().cp(String(input.source), String(input.dest));
      case 'device_sync': {
        const report = await this.client.files().sync(String(input.source), String(input.dest), {
          delete: input.delete === true,
          dry_run: input.dry_run === true,
          exclude: (input.exclude as string[] | undefined) ?? [],
        });
        return report;
      }
      case 'docker_exec':
        return dockerExec(await this.client.streams(), { device: String(input.device), args: input.args as string[], timeout_secs: input.timeout_secs as number | undefined });
      case 'device_exec': {
        requireBatchTarget(input);
        const seconds = typeof input.timeout_secs === 'number' ? input.timeout_secs : EXEC_DEFAULT_TIMEOUT_SECS;
        return this.client.call('device_exec', input, seconds * 1000 + ANSWER_GRACE_MS);
      }
      case 'forward_start':
        return this.forwards.start(String(input.device), input.specs as string[]);
      case 'forward_stop':
        return this.forwards.stop(String(input.session_id));
      case 'forward_list':
        return this.forwards.list();
      case 'device_deploy':
        return (await this.deploy(input)).result;
      case 'device_status':
      case 'device_audit_logs':
      case 'device_deployment_list':
      case 'device_deployment_status':
        requireBatchTarget(input);
        return this.client.call(name, input);
      default:
        return this.client.call(name, input);
    }
  }

  /**
   * device_deploy: `file` is read here, on the caller's machine (relative paths from the working
   * directory), with the files it references inlined, and the normalized DeployRequest is sent.
   * Answers what was sent and the deployment the jobs went into.
   */
  async deploy(input: Input): Promise<{ request: DeployRequest; result: DeployJobsResult }> {
    // Loaded here, not at start-up: the deploy-file reader brings YAML and the schema compiler.
    const { loadDeploySpec } = require('../deploy/spec-loader') as typeof import('../deploy/spec-loader');
    const request = await loadDeploySpec(String(input.file), {
      spec_type: input.spec_type as SpecType | undefined,
      name: input.name as string | undefined,
      deployment_id: input.deployment_id as string | undefined,
    });
    return { request, result: await this.client.deploy(String(input.device), request) };
  }
}

/**
 * [Batch] tools take `device` or `devices`, never both and never neither; the same message the
 * server gives, before anything is sent.
 */
export function requireBatchTarget(input: Input): void {
  const single = input.device !== undefined;
  const many = input.devices !== undefined;
  if (single && many) throw new InvalidInputError('Give either device or devices, not both');
  if (!single && !many) throw new InvalidInputError('Give device (one device name or id) or devices (a list)');
  if (many && (!Array.isArray(input.devices) || input.devices.length === 0)) throw new InvalidInputError('devices must be a non-empty list of device names or ids');
}
