import { BatchResult, DomainError, InvalidInputError, LIMITS } from '@svc/common';

export interface BatchTarget {
  device?: string;
  devices?: string[];
}

/**
 * [Batch] semantics: exactly one of `device`/`devices`. A single device answers with the result
 * itself (errors thrown); a list answers `{results}` in input order with a per-item `error`.
 */
export async function runBatch<R extends object>(target: BatchTarget, work: (device: string) => Promise<R>): Promise<R | BatchResult<R>> {
  const single = target.device !== undefined;
  if (single === (target.devices !== undefined)) throw new InvalidInputError('Give exactly one of device or devices');
  if (single) return work(target.device!);
  const devices = target.devices!;
  if (devices.length === 0) throw new InvalidInputError('devices must not be empty');
  if (devices.length > LIMITS.maxBatchSize) throw new InvalidInputError(`devices may name at most ${LIMITS.maxBatchSize} devices`);
  const results = await Promise.all(
    devices.map(async (device) => {
      try {
        return { device, ...(await work(device)) };
      } catch (err) {
        if (err instanceof DomainError) return { device, error: err.message };
        throw err;
      }
    }),
  );
  return { results };
}
