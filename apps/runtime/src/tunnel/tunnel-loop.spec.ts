import { RuntimeLogger } from '../logging/runtime-logger';
import { Backoff } from './backoff';
import { OpenTunnel, TunnelRefusedError } from './tunnel-connection';
import { runTunnelLoop, TunnelLoopDeps } from './tunnel-loop';

/** A scripted sequence of connection outcomes; time is simulated (no real waiting). */
type Step = { fail: Error } | { upForMs: number };

function harness(steps: Step[], stopAfterSteps = steps.length) {
  let clock = 0;
  const delays: number[] = [];
  const controller = new AbortController();
  let taken = 0;
  const deps: TunnelLoopDeps = {
    backoff: new Backoff({ random: () => 0.5, quickCapMs: 60_000 }),
    log: new RuntimeLogger('error'),
    now: () => clock,
    sleep: async (ms) => {
      delays.push(ms);
      clock += ms;
    },
    async connect(): Promise<OpenTunnel> {
      const step = steps[taken++];
      if (taken >= stopAfterSteps) queueMicrotask(() => controller.abort());
      if (!step) throw new Error('no more steps');
      if ('fail' in step) throw step.fail;
      const closed = new Promise<string>((resolve) =>
        setImmediate(() => {
          clock += step.upForMs;
          resolve('lost');
        }),
      );
      return { carrier: 'tcp', deviceId: 'pi-1', heartbeatSecs: 10, busy: () => false, closed, close: async () => undefined };
    },
  };
  return { deps, delays, controller, connects: () => taken };
}

describe('runTunnelLoop', () => {
  it('retries failed connections with growing, jittered delays', async () => {
    const h = harness([{ fail: new Error('ECONNREFUSED') }, { fail: new Error('ECONNREFUSED') }, { fail: new Error('ECONNREFUSED') }, { fail: new Error('x') }]);
    expect(await runTunnelLoop(h.deps, h.controller.signal)).toBe('stopped');
    expect(h.delays).toEqual([500, 1000, 2000, 4000]);
  });

  it('starts again from the base delay after a connection that stayed up', async () => {
    const h = harness([{ fail: new Error('down') }, { fail: new Error('down') }, { upForMs: 60_000 }, { fail: new Error('down') }]);
    await runTunnelLoop(h.deps, h.controller.signal);
    expect(h.delays).toEqual([500, 1000, 500, 1000]);
  });

  it('keeps growing the delay when connections drop right after opening (flapping)', async () => {
    const h = harness([{ upForMs: 100 }, { upForMs: 100 }, { upForMs: 100 }, { fail: new Error('down') }]);
    await runTunnelLoop(h.deps, h.controller.signal);
    expect(h.delays).toEqual([500, 1000, 2000, 4000]);
  });

  it('stops for good when the key is refused', async () => {
    const h = harness([{ fail: new Error('down') }, { fail: new TunnelRefusedError() }, { upForMs: 1 }], 99);
    expect(await runTunnelLoop(h.deps, h.controller.signal)).toBe('refused');
    expect(h.connects()).toBe(2);
  });

  it('closes the tunnel and returns when told to stop', async () => {
    const controller = new AbortController();
    const close = jest.fn(async () => undefined);
    const deps: TunnelLoopDeps = {
      backoff: new Backoff(),
      log: new RuntimeLogger('error'),
      now: () => 0,
      sleep: async () => undefined,
      connect: async () => {
        setImmediate(() => controller.abort());
        return { carrier: 'tcp', deviceId: 'pi-1', heartbeatSecs: 10, busy: () => false, closed: new Promise(() => undefined), close };
      },
    };
    expect(await runTunnelLoop(deps, controller.signal)).toBe('stopped');
    expect(close).toHaveBeenCalledTimes(1);
  });
});
