import type { IncomingMessage } from 'node:http';
import { DomainError, InvalidInputError, JOB_LOGS_MAX_TAIL } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { booleanFlag, integerFlag, paramArg } from '../../catalog-flags';
import { deviceArg } from '../../flags';
import { escapeTerminal } from '../../output/terminal-text';

/** What `--json` prints: the log's lines at the time of asking. */
export interface JobLogLines {
  device: string;
  job: string;
  lines: string[];
}

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export default class DeploymentsLogs extends SvcCommand<typeof DeploymentsLogs> {
  static override summary = "A job's log from the device: its steps' output (or its observe.logs command's).";
  static override description = `The log is printed as the job wrote it, unescaped: it is what you asked to see. The device keeps a bounded log per job; --tail picks how many of the last lines come first.

--follow keeps printing new lines until Ctrl-C (or SIGTERM), which ends it normally: exit 0. When the device ends it (its runtime stopping) svc says so on stderr and exits 0; a follow cut off (the device lost, the server gone) exits 2. --json prints {device, job, lines} once and cannot be combined with --follow.`;
  static override examples = ['<%= config.bin %> deployments logs edge-1 web', '<%= config.bin %> deployments logs edge-1 web --follow --tail 20', '<%= config.bin %> deployments logs edge-1 web --tail 500 --json'];
  static override args = { device: deviceArg('device_deploy.job_logs'), job: paramArg('device_deploy.job_logs', 'job_id') };
  static override flags = {
    follow: booleanFlag('device_deploy.job_logs', 'follow', { char: 'f', description: 'keep printing new lines until Ctrl-C' }),
    tail: integerFlag('device_deploy.job_logs', 'tail', { description: `start with the last N lines (0-${JOB_LOGS_MAX_TAIL})` }),
  };

  async run(): Promise<JobLogLines | undefined> {
    const { device, job } = this.args;
    if (this.flags.follow && this.jsonEnabled()) throw new InvalidInputError('--follow prints the log as it grows; --json prints it once: give one of them');
    const body = await this.client.deploymentLogs(device, job, { follow: this.flags.follow, tail: this.flags.tail });
    const broken = () => new DomainError('DEVICE_OFFLINE', `The log of ${job} broke off: ${device} or the server went away`);
    if (this.jsonEnabled()) {
      const text = await readText(body).catch(() => Promise.reject(broken()));
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      return { device, job, lines };
    }
    const ended = await relay(body, broken);
    // A follow has no end of its own: the device ended it, its runtime stopping (or restarting).
    if (ended && this.flags.follow) this.note(`svc: ${escapeTerminal(device)} ended the log of ${escapeTerminal(job)} (its runtime stopped)`);
    return undefined;
  }
}

async function readText(body: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The log to stdout as it arrives. Ctrl-C (or SIGTERM, SIGHUP) and a reader that went away (a
 * closed pipe) end it quietly; the answer breaking off is an error. Answers whether the answer
 * came to its end (rather than being stopped here).
 */
async function relay(body: IncomingMessage, broken: () => Error): Promise<boolean> {
  let stopped = false;
  let wake = () => undefined as void;
  const stop = () => {
    stopped = true;
    body.destroy();
    wake();
  };
  for (const signal of STOP_SIGNALS) process.once(signal, stop);
  process.stdout.once('error', stop);
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (process.stdout.write(chunk) || stopped) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        process.stdout.once('drain', resolve);
      });
    }
    return !stopped;
  } catch {
    if (!stopped) throw broken();
    return false;
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, stop);
    process.stdout.off('error', stop);
  }
}
