import { InvalidInputError } from '@svc/common';
import { SvcCommand } from '../base-command';
import { integerFlag } from '../catalog-flags';
import { deviceArg } from '../flags';
import { passThrough } from '../forward/pass-through-args';
import { JsonStreamWriter } from '../output/json-stream';
import { dockerExec } from '../sdk/docker-exec';

export default class Docker extends SvcCommand<typeof Docker> {
  static override summary = "Run the docker CLI against a device's container engine.";
  static override description = `Everything after "--" goes to your local docker CLI, whose DOCKER_HOST is a private socket forwarded to the engine socket on the device (Docker or Podman). It runs on your terminal's stdin, stdout and stderr, so output streams as produced and "docker run -i" or "docker exec -it" read your input, and svc exits with its exit code; --json prints {stdout, stderr, exit_code, timed_out} (of any size) and exits with that code too. Containers that keep running need -d. Needs the docker CLI on this machine and the exec right on the device.`;
  static override examples = [
    '<%= config.bin %> docker edge-1 -- ps -a',
    '<%= config.bin %> docker edge-1 -- logs --tail 50 web',
    '<%= config.bin %> docker edge-1 --timeout 600 -- pull nginx:1.27',
    "<%= config.bin %> docker edge-1 --json -- images --format '{{json .}}'",
  ];
  static override strict = false;
  static override passThroughParam = 'args';
  static override usage = '<%= command.id %> <device> [--timeout <s>] -- <docker args…>';
  static override args = { device: deviceArg('docker_exec') };
  static override flags = {
    timeout: integerFlag('docker_exec', 'timeout_secs', { description: 'seconds before the docker CLI is killed' }),
  };

  async run(): Promise<void> {
    const { command, device } = passThrough(this.argv, this.args.device, 'docker arguments');
    if (device === undefined) throw new InvalidInputError('Give the device before "--", e.g. svc docker edge-1 -- ps -a');
    const json = this.jsonEnabled();
    const streams = await this.client.streams();
    const options = { device, args: command, timeout_secs: this.flags.timeout };
    // --json keeps all of the output (no cut) and writes it without oclif's colouring, which cannot take megabytes.
    const result = json ? await dockerExec(streams, { ...options, maxOutputBytes: Number.POSITIVE_INFINITY }) : await dockerExec(streams, { ...options, io: 'inherit' });
    if (json) await new JsonStreamWriter(process.stdout).value(result).then(() => process.stdout.write('\n'));
    process.exitCode = result.exit_code;
  }
}
