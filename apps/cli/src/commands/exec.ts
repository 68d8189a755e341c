import { Args, Flags } from '@oclif/core';
import { BatchItem, ExecResult, InvalidInputError, OperationResults } from '@svc/common';
import { EXIT, SvcCommand } from '../base-command';
import { batchTarget, devicesFlag } from '../flags';
import { passThrough } from '../forward/pass-through-args';
import { withSpinner } from '../forward/wait-spinner';
import { escapeTerminal } from '../output/terminal-text';

type ExecAnswer = OperationResults['device_exec'];

export default class Exec extends SvcCommand<typeof Exec> {
  static override summary = 'Run a command on a device, or on several at once.';
  static override description = `Everything after "--" is the command and its arguments, run without a shell (use sh -c '…' for one).

One device: its output (stdout and stderr as produced) is printed raw and svc exits with the command's exit code.
Several devices (--devices a,b,c): every output line is prefixed "<device>: ", a device that could not run the command shows its error on stderr, and svc exits with the worst (highest) code, a per-device error counting as 2.
--json prints the result and still exits with that same code. A command killed by --timeout reports 128 + the signal.`;
  static override examples = [
    '<%= config.bin %> exec edge-1 -- uname -a',
    "<%= config.bin %> exec edge-1 --timeout 120 -- sh -c 'apt-get update && apt-get -y upgrade'",
    '<%= config.bin %> exec --devices edge-1,edge-2,edge-3 -- systemctl is-active nginx',
    '<%= config.bin %> exec edge-1 --json -- df -h /',
  ];
  static override strict = false;
  static override usage = ['<%= command.id %> <device> [--timeout <s>] -- <command> [args…]', '<%= command.id %> --devices <a,b,c> [--timeout <s>] -- <command> [args…]'];
  static override args = { device: Args.string({ description: 'device name or id (or --devices)' }) };
  static override flags = {
    devices: devicesFlag,
    timeout: Flags.integer({ description: 'seconds before the command is killed', default: 30, min: 1 }),
  };

  async run(): Promise<ExecAnswer> {
    const { command, device } = passThrough(this.argv, this.args.device, 'command');
    if (device === undefined && !this.flags.devices?.length) throw new InvalidInputError('Give a device, or several with --devices a,b,c');
    const target = batchTarget(device, this.flags.devices);
    const answer = await withSpinner('Running', this.jsonEnabled(), () => this.runner.run('device_exec', { ...target, command, timeout_secs: this.flags.timeout }));
    if ('results' in answer) {
      if (!this.jsonEnabled()) for (const item of answer.results) this.showBatchItem(item);
      process.exitCode = Math.max(EXIT.OK, ...answer.results.map((item) => ('error' in item ? EXIT.FAILED : item.exit_code)));
    } else {
      if (!this.jsonEnabled()) {
        process.stdout.write(answer.output);
        if (answer.timed_out) this.note(`svc: the command did not finish within ${this.flags.timeout} s and was killed`);
      }
      process.exitCode = answer.exit_code;
    }
    return answer;
  }

  private showBatchItem(item: BatchItem<ExecResult>): void {
    const prefix = `${escapeTerminal(item.device)}: `;
    if ('error' in item) {
      process.stderr.write(`${prefix}error: ${escapeTerminal(item.error)}\n`);
      return;
    }
    const lines = item.output.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    for (const line of lines) process.stdout.write(`${prefix}${line}\n`);
    if (item.timed_out) process.stderr.write(`${prefix}svc: the command did not finish within ${this.flags.timeout} s and was killed\n`);
    else if (item.exit_code !== 0) process.stderr.write(`${prefix}exit code ${item.exit_code}\n`);
  }
}
