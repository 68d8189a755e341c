import { Args, Flags } from '@oclif/core';
import { InvalidInputError } from '@svc/common';
import { SvcCommand } from '../base-command';
import { passThrough } from '../forward/pass-through-args';
import { withSpinner } from '../forward/wait-spinner';
import { DockerExecResult } from '../sdk/docker-exec';

export default class Docker extends SvcCommand<typeof Docker> {
  static override summary = "Run the docker CLI against a device's container engine.";
  static override description = `Everything after "--" goes to your local docker CLI, whose DOCKER_HOST is a private socket forwarded to the engine socket on the device (Docker or Podman). Its stdout and stderr are printed raw once it finished, and svc exits with its exit code; --json prints {stdout, stderr, exit_code, timed_out} and exits with that code too. Containers that keep running need -d. Needs the docker CLI on this machine and the exec right on the device.`;
  static override examples = [
    '<%= config.bin %> docker edge-1 -- ps -a',
    '<%= config.bin %> docker edge-1 -- logs --tail 50 web',
    '<%= config.bin %> docker edge-1 --timeout 600 -- pull nginx:1.27',
    "<%= config.bin %> docker edge-1 --json -- images --format '{{json .}}'",
  ];
  static override strict = false;
  static override usage = '<%= command.id %> <device> [--timeout <s>] -- <docker args…>';
  static override args = { device: Args.string({ description: 'device name or id', required: true }) };
  static override flags = {
    timeout: Flags.integer({ description: 'seconds before the docker CLI is killed', default: 60, min: 1 }),
  };

  async run(): Promise<DockerExecResult> {
    const { command, device } = passThrough(this.argv, this.args.device, 'docker arguments');
    if (device === undefined) throw new InvalidInputError('Give the device before "--", e.g. svc docker edge-1 -- ps -a');
    const result = (await withSpinner('Running docker', this.jsonEnabled(), () =>
      this.runner.run('docker_exec', { device, args: command, timeout_secs: this.flags.timeout }),
    )) as DockerExecResult;
    if (!this.jsonEnabled()) {
      process.stdout.write(result.stdout);
      process.stderr.write(result.stderr);
    }
    process.exitCode = result.exit_code;
    return result;
  }
}
