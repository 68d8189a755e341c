import { StringDecoder } from 'node:string_decoder';
import { Injectable, Logger } from '@nestjs/common';
import { BatchResult, capabilityOf, DomainError, ExecResult, ExecStreamArgs, parseExecArgs, RouteInput, TUNNEL_OPS } from '@svc/common';

/** device_exec's input as its route schema checked it (the catalog entry's). */
type ExecInput = RouteInput<'device_exec'>;
import { AuditService } from '../audit/audit.service';
import type { UserPrincipal } from '../auth/principal';
import { AccessPolicy } from '../authorization/access-policy.service';
import { BatchLimits, BatchSteps, DEFAULT_BATCH_LIMITS, runBatch } from '../devices/batch';
import { currentRequestId } from '../logging/request-context';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { DeviceRecord } from '../storage/records';
import { EXEC_BATCH_OUTPUT_BUDGET_BYTES, EXEC_OUTPUT_CAP_BYTES, ExecOutputCollector } from './exec-output';
import { execAuditDetails } from './exec-audit';
import { DEVICE_GRACE_MS, driveExec, OutputStream } from './exec-tunnel';
import type { ExecLineSink } from './exec-lines';

interface ExecTarget {
  ref: string;
  device: DeviceRecord;
}

/**
 * device_exec: authorize (device:exec) → audit → the device's tunnel (DEVICE_OFFLINE without
 * one) → an exec stream. Answers either collected JSON or NDJSON lines as output is produced.
 */
@Injectable()
export class ExecService {
  private readonly logger = new Logger('Exec');

  constructor(
    private readonly policy: AccessPolicy,
    private readonly registry: TunnelRegistry,
    private readonly audit: AuditService,
  ) {}

  run(principal: UserPrincipal, input: ExecInput, clientGone?: AbortSignal): Promise<ExecResult | BatchResult<ExecResult>> {
    const args = execArgs(input);
    const batch = input.devices !== undefined;
    return runBatch(
      input,
      {
        resolve: this.resolver(principal),
        run: async ({ device }, { count, signal }): Promise<ExecResult> => {
          const tunnel = await this.open(principal, device, args);
          const output = new ExecOutputCollector(count > 1 ? Math.min(EXEC_OUTPUT_CAP_BYTES, Math.floor(EXEC_BATCH_OUTPUT_BUDGET_BYTES / count)) : EXEC_OUTPUT_CAP_BYTES);
          const exit = await driveExec(tunnel, input.stdin, (_stream, data) => output.add(data), anyOf(signal, clientGone));
          const result: ExecResult = { output: output.text(), ...exit };
          // A batch item that timed out carries `error` besides its partial output (service.md, errors).
          if (batch && exit.timed_out) result.error = `timed out after ${args.timeout_secs} s`;
          return result;
        },
      },
      limitsFor(args),
    );
  }

  /**
   * NDJSON: `{stream, data}` lines as produced, then `{exit_code, timed_out}`; a batch tags every
   * line with its `device` and reports a device's failure as `{device, error, code}`. Failures
   * before the first line are thrown (an HTTP error answer); after it they become a line.
   */
  async stream(principal: UserPrincipal, input: ExecInput, sink: ExecLineSink, clientGone?: AbortSignal): Promise<void> {
    const args = execArgs(input);
    const batch = input.devices !== undefined;
    const steps: BatchSteps<ExecTarget, object> = {
      resolve: this.resolver(principal),
      run: async ({ ref, device }, { signal }) => {
        const tag = batch ? { device: ref } : {};
        try {
          await this.streamOne(device, principal, args, input.stdin, sink, tag, anyOf(signal, clientGone));
        } catch (err) {
          if (!batch && !sink.started) throw err;
          await sink.line({ ...tag, ...this.errorLine(err) });
        }
        return {};
      },
    };
    let answer: object;
    try {
      answer = await runBatch(input, steps, limitsFor(args));
    } catch (err) {
      if (!sink.started) throw err;
      await sink.line(this.errorLine(err));
      return;
    }
    // Devices that failed before running (not found, refused) are only in the batch answer.
    for (const item of (answer as BatchResult<object>).results ?? []) {
      if ('error' in item) await sink.line({ device: item.device, error: item.error, code: (item as { code?: string }).code ?? 'INTERNAL' });
    }
  }

  private async streamOne(device: DeviceRecord, principal: UserPrincipal, args: ExecStreamArgs, stdin: string | undefined, sink: ExecLineSink, tag: { device?: string }, signal: AbortSignal): Promise<void> {
    const tunnel = await this.open(principal, device, args);
    const decoders: Record<OutputStream, StringDecoder> = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
    const emit = async (stream: OutputStream, data: string) => {
      if (data.length > 0) await sink.line({ ...tag, stream, data });
    };
    const exit = await driveExec(tunnel, stdin, (stream, data) => emit(stream, decoders[stream].write(data)), signal);
    await emit('stdout', decoders.stdout.end());
    await emit('stderr', decoders.stderr.end());
    await sink.line({ ...tag, ...exit });
  }

  private resolver(principal: UserPrincipal): BatchSteps<ExecTarget, object>['resolve'] {
    return async (ref) => {
      const { device } = await this.policy.requireDevice(principal, ref, capabilityOf('device_exec'));
      return { key: device.id, target: { ref, device } };
    };
  }

  private async open(principal: UserPrincipal, device: DeviceRecord, args: ExecStreamArgs): Promise<TunnelStream> {
    await this.audit.record(principal, 'device.exec', { deviceId: device.id, details: execAuditDetails(args.command) });
    return this.registry.require(device.id).openStream({ op: TUNNEL_OPS.exec, args, requestId: currentRequestId(), actor: principal.email });
  }

  private errorLine(err: unknown): { error: string; code: string } {
    if (err instanceof DomainError) return { error: err.message, code: err.code };
    this.logger.error(err instanceof Error ? err : String(err));
    return { error: 'Internal server error', code: 'INTERNAL' };
  }
}

/** The runtime's own argument rules (parseExecArgs), so the REST call, the exec stream and the device agree. */
function execArgs(input: ExecInput): ExecStreamArgs {
  return parseExecArgs({ command: input.command, timeout_secs: input.timeout_secs, stdin: input.stdin !== undefined });
}

/** A batch item may run as long as the command may, plus the device's grace to report its timeout. */
function limitsFor(args: ExecStreamArgs): BatchLimits {
  return { ...DEFAULT_BATCH_LIMITS, timeoutMs: args.timeout_secs * 1000 + DEVICE_GRACE_MS };
}

function anyOf(signal: AbortSignal, other: AbortSignal | undefined): AbortSignal {
  return other ? AbortSignal.any([signal, other]) : signal;
}
