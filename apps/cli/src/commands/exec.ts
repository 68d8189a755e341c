import { Flags } from '@oclif/core';
import { DomainError, InvalidInputError } from '@svc/common/errors';
import { SvcCommand } from '../base-command';
import { integerFlag } from '../catalog-flags';
import { exitCodeFor } from '../exit-codes';
import { batchDeviceArg, batchTarget, devicesFlag } from '../flags';
import { passThrough } from '../forward/pass-through-args';
import { ExecJsonOutput, killedNote, printBatch, printBatchJson, rawOutput } from '../output/exec-output';
import { execStream } from '../sdk/exec-stream';

const OUTPUT_CLOSED = new Error('output closed');
/** 128 + SIGPIPE, what a shell reports for a writer whose reader left. */
const SIGPIPE_EXIT = 141;

export default class Exec extends SvcCommand<typeof Exec> {
  static override summary = 'Run a command on a device, or on several at once.';
  static override description = `Everything after "--" is the command and its arguments, run without a shell (use sh -c '…' for one).

One device, as "ssh host cmd": stdout and stderr are printed raw as they are produced, each to its own stream, and svc exits with the command's exit code. stdin is sent to the command when it is not a terminal (or with -i; never with -n), and its end reaches the command as end of file.
Several devices (--devices a,b,c), as pdsh: every output line is prefixed "<device>: " (stderr lines on stderr), a device that could not run the command shows its error on stderr, and svc exits with the worst (highest) code, a per-device error counting as 2. The commands get no stdin.
--json prints the result (of any size) and still exits with that same code. A command killed by --timeout reports 128 + the signal.`;
  static override examples = [
    '<%= config.bin %> exec edge-1 -- uname -a',
    "<%= config.bin %> exec edge-1 --timeout 120 -- sh -c 'apt-get update && apt-get -y upgrade'",
    '<%= config.bin %> exec edge-1 -- tar -C /var/log -cz . > logs.tgz',
    '<%= config.bin %> exec edge-1 -- sh -c "cat > /etc/app.conf" < app.conf',
    '<%= config.bin %> exec --devices edge-1,edge-2,edge-3 -- systemctl is-active nginx',
    '<%= config.bin %> exec edge-1 --json -- df -h /',
  ];
  static override strict = false;
  static override passThroughParam = 'command';
  static override usage = ['<%= command.id %> <device> [--timeout <s>] [-i | -n] -- <command> [args…]', '<%= command.id %> --devices <a,b,c> [--timeout <s>] -- <command> [args…]'];
  static override args = { device: batchDeviceArg('device_exec') };
  static override flags = {
    devices: devicesFlag('device_exec'),
    timeout: integerFlag('device_exec', 'timeout_secs', { description: 'seconds before the command is killed' }),
    interactive: Flags.boolean({ char: 'i', description: 'send stdin to the command even when it is a terminal', exclusive: ['no-stdin'] }),
    'no-stdin': Flags.boolean({ char: 'n', description: 'give the command no stdin, even when it is piped (as ssh -n)' }),
  };

  async run(): Promise<void> {
    const { command, device } = passThrough(this.argv, this.args.device, 'command');
    const target = batchTarget(device, this.flags.devices);
    if (target.device === undefined && target.devices === undefined) throw new InvalidInputError('Give a device, or several with --devices a,b,c');
    if (target.device !== undefined && target.devices !== undefined) throw new InvalidInputError('Give either a device or --devices, not both');
    process.exitCode = target.devices ? await this.runBatch(target.devices, command) : await this.runOne(target.device!, command);
  }

  private async runOne(device: string, command: string[]): Promise<number> {
    const timeout = this.flags.timeout;
    const stdin = !this.flags['no-stdin'] && (this.flags.interactive || !process.stdin.isTTY) ? process.stdin : undefined;
    const json = this.jsonEnabled() ? new ExecJsonOutput() : undefined;
    return whileOutputOpen(async (signal) => {
      try {
        const exit = await execStream(await this.client.streams(), device, { command, timeout_secs: timeout, stdin, onOutput: json?.onOutput ?? rawOutput, signal });
        if (json) await json.end(exit);
        else if (exit.timed_out) this.note(killedNote(timeout));
        return exit.exit_code;
      } catch (error) {
        // Under --json, output already printed is closed into one document with the error.
        if (!json?.started || !(error instanceof DomainError)) throw error;
        await json.fail(error);
        return exitCodeFor(error);
      }
    });
  }

  private async runBatch(devices: string[], command: string[]): Promise<number> {
    const timeout = this.flags.timeout;
    const { execBatchLines } = require('../sdk/exec-batch') as typeof import('../sdk/exec-batch');
    return whileOutputOpen((signal) => {
      const lines = execBatchLines(this.client, { devices, command, timeout_secs: timeout }, signal);
      return this.jsonEnabled() ? printBatchJson(lines, devices, timeout) : printBatch(lines, timeout);
    });
  }
}

/**
 * Runs `work` with a signal that aborts when stdout or stderr can no longer be written (`svc exec d
 * -- yes | head -1`): the remote commands are then stopped and svc exits 141, as a writer killed
 * by SIGPIPE does.
 */
async function whileOutputOpen(work: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const outputClosed = new AbortController();
  const onOutputError = () => outputClosed.abort(OUTPUT_CLOSED);
  process.stdout.once('error', onOutputError);
  process.stderr.once('error', onOutputError);
  try {
    return await work(outputClosed.signal);
  } catch (error) {
    if (error === OUTPUT_CLOSED) return SIGPIPE_EXIT;
    throw error;
  } finally {
    process.stdout.off('error', onOutputError);
    process.stderr.off('error', onOutputError);
  }
}
