import { InvalidInputError, NotFoundError } from '@svc/common';
import type { RunningOperation } from '../supervisor/operation-registry';
import type { StreamContext, StreamHandler } from '../tunnel/stream-router';
import { writeAnswer, writeWithFlowControl } from '../handlers/answer-writer';
import type { DeploymentEngine } from './deployment-engine';
import type { JobLog } from './job-log';
import type { OperationStream } from '../tunnel/operation-stream';

/** The server's default and its largest `tail`. */
export const LOGS_DEFAULT_TAIL = 100;
export const LOGS_MAX_TAIL = 10_000;
/** A follower whose reader is this far behind loses lines (and is told how many) rather than growing memory. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

export interface DeploymentLogsArgs {
  job: string;
  follow: boolean;
  tail: number;
}

export function parseDeploymentLogsArgs(raw: Record<string, unknown>): DeploymentLogsArgs {
  const { job, follow = false, tail = LOGS_DEFAULT_TAIL } = raw;
  if (typeof job !== 'string' || job === '') throw new InvalidInputError('job must be a job id');
  if (typeof follow !== 'boolean') throw new InvalidInputError('follow must be true or false');
  if (typeof tail !== 'number' || !Number.isInteger(tail) || tail < 0 || tail > LOGS_MAX_TAIL) {
    throw new InvalidInputError(`tail must be a number of lines (0-${LOGS_MAX_TAIL})`);
  }
  return { job, follow, tail };
}

/**
 * `POST /v1/deployments/logs`: a job's log as text, the last `tail` lines, then (`follow`) every
 * new line until the stream is cancelled. An unknown job is refused (404) before answering.
 */
export function deploymentLogsHandler(engine: DeploymentEngine): StreamHandler {
  return async (stream: OperationStream, rawArgs: Record<string, unknown>, context: StreamContext) => {
    const args = parseDeploymentLogsArgs(rawArgs);
    const log = engine.log(args.job);
    if (!log) throw new NotFoundError(`No job ${args.job} in the deployment running on this device`);
    stream.respond({ ':status': 200, 'content-type': 'text/plain; charset=utf-8' });
    const lines = log.tail(args.tail);
    const tail = lines.length > 0 ? `${lines.join('\n')}\n` : '';
    if (!args.follow) {
      await writeAnswer(stream, tail);
      return;
    }
    await writeWithFlowControl(stream, tail);
    const follower = new LogFollower(stream, log);
    context.operations.add(follower);
    await follower.done;
  };
}

class LogFollower implements RunningOperation {
  readonly done: Promise<void>;
  private dropped = 0;

  constructor(
    private readonly stream: OperationStream,
    log: JobLog,
  ) {
    const unfollow = log.follow((line) => this.send(line));
    stream.on('drain', () => this.reportDropped());
    stream.on('error', () => undefined);
    this.done = new Promise<void>((resolve) => stream.once('close', resolve)).then(unfollow);
  }

  abort(): void {
    if (!this.stream.destroyed) this.stream.end();
    this.stream.close();
  }

  private send(line: string): void {
    if (this.stream.destroyed || this.stream.writableEnded) return;
    if (this.stream.writableLength > MAX_BUFFERED_BYTES) {
      this.dropped++;
      return;
    }
    this.reportDropped();
    this.stream.write(`${line}\n`);
  }

  private reportDropped(): void {
    if (this.dropped === 0 || this.stream.destroyed) return;
    this.stream.write(`[svc] ${this.dropped} lines skipped: the reader fell behind\n`);
    this.dropped = 0;
  }
}
