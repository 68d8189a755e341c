import { Command } from '@oclif/core';

type Verb = 'run' | 'logout' | 'enable' | 'disable' | 'status';

/**
 * `svc runtime <verb> …` hands its arguments to the device runtime (apps/runtime), which parses
 * its own options and owns its exit codes (docs/configuration.md, "Runtime"). The runtime is
 * loaded only when one of these commands runs, so the rest of the CLI starts without it.
 */
export abstract class RuntimePassthrough extends Command {
  static override strict = false;
  protected abstract readonly verb: Verb;

  async run(): Promise<void> {
    const { runtimeMain } = await import('@svc/runtime');
    const code = await runtimeMain([this.verb, ...this.argv]);
    // The daemon has closed what it opened; exit now with its code rather than wait for stragglers.
    process.exit(code);
  }
}
