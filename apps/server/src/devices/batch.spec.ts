import { ConflictError, DeviceNotFoundError, ForbiddenError } from '@svc/common';
import { BatchSteps, runBatch } from './batch';

/**
 * A fake fleet: `alpha` (id a1), `beta` (id b1, also reachable as "b-name"), `gamma` (g1, whose
 * work is forbidden), `ghost` (no such device), `hang` (never answers), `dup` (ambiguous name).
 */
const FLEET: Record<string, string> = { a1: 'a1', alpha: 'a1', b1: 'b1', 'b-name': 'b1', g1: 'g1', gamma: 'g1', hang: 'h1' };

function fleetSteps(log: string[] = []): BatchSteps<string, { ran: string; count: number }> {
  return {
    async resolve(ref) {
      if (ref === 'dup') throw new ConflictError('More than one device is named "dup"');
      const key = FLEET[ref];
      if (!key) throw new DeviceNotFoundError();
      return { key, target: key };
    },
    async run(id, { count, signal }) {
      log.push(id);
      if (id === 'g1') throw new ForbiddenError('Access denied');
      if (id === 'h1') await new Promise((resolve) => signal.addEventListener('abort', resolve));
      return { ran: id, count };
    },
  };
}

const limits = { concurrency: 3, timeoutMs: 50 };

describe('runBatch', () => {
  const cases: [string, string[], unknown[]][] = [
    ['one entry per item, in input order', ['b1', 'a1'], [{ device: 'b1', ran: 'b1', count: 2 }, { device: 'a1', ran: 'a1', count: 2 }]],
    ['the same reference twice is evaluated once', ['a1', 'a1'], [{ device: 'a1', ran: 'a1', count: 1 }]],
    [
      'a device named by id and by name is evaluated once, under its first reference',
      ['b-name', 'alpha', 'b1', 'a1'],
      [
        { device: 'b-name', ran: 'b1', count: 2 },
        { device: 'alpha', ran: 'a1', count: 2 },
      ],
    ],
    [
      'resolution errors carry their code, in place',
      ['ghost', 'a1', 'dup'],
      [
        { device: 'ghost', error: 'Device not found', code: 'DEVICE_NOT_FOUND' },
        { device: 'a1', ran: 'a1', count: 1 },
        { device: 'dup', error: 'More than one device is named "dup"', code: 'CONFLICT' },
      ],
    ],
    ['work errors carry their code', ['gamma'], [{ device: 'gamma', error: 'Access denied', code: 'FORBIDDEN' }]],
    [
      'the slow item reports TIMEOUT and the others answer',
      ['hang', 'a1'],
      [
        { device: 'hang', error: 'No answer within 0.05 s', code: 'TIMEOUT' },
        { device: 'a1', ran: 'a1', count: 2 },
      ],
    ],
  ];

  it.each(cases)('%s', async (_label, devices, results) => {
    expect(await runBatch({ devices }, fleetSteps(), limits)).toEqual({ results });
  });

  it('a single device answers the result itself and throws its error', async () => {
    expect(await runBatch({ device: 'alpha' }, fleetSteps(), limits)).toEqual({ ran: 'a1', count: 1 });
    await expect(runBatch({ device: 'ghost' }, fleetSteps(), limits)).rejects.toBeInstanceOf(DeviceNotFoundError);
    await expect(runBatch({ device: 'hang' }, fleetSteps(), limits)).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  it.each([
    ['neither', {}, 'Give exactly one of device or devices'],
    ['both', { device: 'a1', devices: ['a1'] }, 'Give exactly one of device or devices'],
  ])('refuses %s', async (_label, target, message) => {
    await expect(runBatch(target, fleetSteps(), limits)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining(message) });
  });

  it('runs at most `concurrency` items at once', async () => {
    let running = 0;
    let most = 0;
    const steps: BatchSteps<string, object> = {
      resolve: async (ref) => ({ key: ref, target: ref }),
      async run() {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        return {};
      },
    };
    const devices = Array.from({ length: 20 }, (_, i) => `d${i}`);
    const answer = await runBatch({ devices }, steps, { concurrency: 4, timeoutMs: 60_000 });
    expect((answer as { results: unknown[] }).results).toHaveLength(20);
    expect(most).toBe(4);
  });

  it('takes a plain function when references need no resolving: each reference is its own key', async () => {
    const seen: string[] = [];
    const work = async (ref: string) => {
      seen.push(ref);
      return { echo: ref };
    };
    expect(await runBatch({ devices: ['x', 'y', 'x'] }, work, limits)).toEqual({ results: [{ device: 'x', echo: 'x' }, { device: 'y', echo: 'y' }] });
    expect(seen).toEqual(['x', 'y']);
  });

  it('fails the whole batch on an error that is not a domain error', async () => {
    const steps: BatchSteps<string, object> = {
      resolve: async (ref) => ({ key: ref, target: ref }),
      run: async () => {
        throw new TypeError('bug');
      },
    };
    await expect(runBatch({ devices: ['a', 'b'] }, steps, limits)).rejects.toBeInstanceOf(TypeError);
  });
});
