import { escapeControls } from '@svc/common/control-chars';
import { DomainError } from '@svc/common/errors';
import { ExecResult } from '@svc/common/operations';
import type { ExecBatchLine } from '../sdk/exec-batch';
import type { ExecStreamExit, OutputStreamName } from '../sdk/exec-stream';
import { JsonStreamWriter, write } from './json-stream';
import { PrefixedLines } from './prefixed-lines';

/** Exit status of a device that could not run the command, as in every svc command. */
const DEVICE_ERROR_EXIT = 2;

export const killedNote = (seconds: number) => `svc: the command did not finish within ${seconds} s and was killed`;

/**
 * One device's output under --json: `{"output": …, "exit_code", "timed_out"}` written as the
 * output arrives, so its size is bounded by nothing but the disk it goes to. A failure after the
 * output began closes the document with `"error": {code, message}`.
 */
export class ExecJsonOutput {
  private readonly json = new JsonStreamWriter(process.stdout);
  private begun = false;

  readonly onOutput = async (_stream: OutputStreamName, data: Buffer): Promise<void> => {
    await this.begin();
    await this.json.stringBytes(data);
  };

  get started(): boolean {
    return this.begun;
  }

  async end(exit: ExecStreamExit): Promise<void> {
    await this.begin();
    await this.json.endString();
    await this.json.raw(`",${JSON.stringify({ exit_code: exit.exit_code, timed_out: exit.timed_out }).slice(1)}\n`);
  }

  async fail(error: DomainError): Promise<void> {
    await this.json.endString();
    await this.json.raw('","error":');
    await this.json.value({ code: error.code, message: error.message });
    await this.json.raw('}\n');
  }

  private async begin(): Promise<void> {
    if (this.begun) return;
    this.begun = true;
    await this.json.raw('{"output":"');
  }
}

/** One device, no --json: its stdout and stderr, raw, each to its own local stream as they come. */
export function rawOutput(stream: OutputStreamName, data: Buffer): Promise<void> {
  return write(stream === 'stdout' ? process.stdout : process.stderr, data);
}

/**
 * A batch's NDJSON lines, printed as they come: each device's lines prefixed (stdout to stdout,
 * stderr to stderr), its error or non-zero exit on stderr. Answers the worst exit status.
 */
export async function printBatch(lines: AsyncIterable<ExecBatchLine>, timeoutSecs: number): Promise<number> {
  const out = new PrefixedLines(process.stdout);
  const err = new PrefixedLines(process.stderr);
  let worst = 0;
  for await (const line of lines) {
    if ('stream' in line) {
      await (line.stream === 'stdout' ? out : err).add(line.device, line.data);
      continue;
    }
    await out.flush(line.device);
    await err.flush(line.device);
    if ('error' in line) {
      worst = Math.max(worst, DEVICE_ERROR_EXIT);
      await err.note(line.device, `error: ${line.error}`);
      continue;
    }
    worst = Math.max(worst, line.exit_code);
    if (line.timed_out) await err.note(line.device, killedNote(timeoutSecs));
    else if (line.exit_code !== 0) await err.note(line.device, `exit code ${line.exit_code}`);
  }
  return worst;
}

type BatchEntry = { output: string[]; end?: Omit<ExecResult, 'output'> } | { device: string; error: string; code: string };

/**
 * A batch under --json: `{"results": [...]}` in the order the devices were named, each item as
 * device_exec answers it (a timed-out one also carries `error`). Output is held per device in
 * pieces and written piece by piece, so no single string has to hold it all.
 */
export async function printBatchJson(lines: AsyncIterable<ExecBatchLine>, devices: string[], timeoutSecs: number): Promise<number> {
  const entries = new Map<string, BatchEntry>();
  const entry = (device: string) => {
    let found = entries.get(device);
    if (!found) entries.set(device, (found = { output: [] }));
    return found;
  };
  let worst = 0;
  for await (const line of lines) {
    if ('stream' in line) {
      const found = entry(line.device);
      if ('output' in found) found.output.push(line.data);
    } else if ('error' in line) {
      worst = Math.max(worst, DEVICE_ERROR_EXIT);
      entries.set(line.device, { device: line.device, error: line.error, code: line.code });
    } else {
      worst = Math.max(worst, line.exit_code);
      const found = entry(line.device);
      if ('output' in found) found.end = { exit_code: line.exit_code, timed_out: line.timed_out, ...(line.timed_out ? { error: `timed out after ${timeoutSecs} s` } : {}) };
    }
  }
  const json = new JsonStreamWriter(process.stdout);
  await json.raw('{"results":[');
  let first = true;
  for (const device of new Set(devices)) {
    const found = entries.get(device);
    if (!found || ('output' in found && !found.end)) continue;
    await json.raw(first ? '' : ',');
    first = false;
    if (!('output' in found)) {
      await json.value(found);
      continue;
    }
    await json.raw(`{"device":${escapeControls(JSON.stringify(device))},"output":"`);
    for (const text of found.output) await json.stringText(text);
    await json.raw(`",${JSON.stringify(found.end).slice(1)}`);
  }
  await json.raw(']}\n');
  return worst;
}
