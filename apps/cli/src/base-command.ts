import { Command, Errors, Flags, Interfaces } from '@oclif/core';
import { CredentialsFileError, DomainError } from '@svc/common';
import { CliSettings, loadCliSettings } from './config/cli-settings';
import { EXIT, exitCodeFor } from './exit-codes';
import { escapeTerminal } from './output/terminal-text';
import { BackgroundForwardSessions } from './forward/background-sessions';
import { ApiError } from './sdk/api-error';
import { OperationRunner } from './sdk/operation-runner';
import { SvcClient } from './sdk/svc-client';

export type CommandFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof SvcCommand)['baseFlags'] & T['flags']>;
export type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>;

/**
 * What every `svc` command shares: `--json` (run() returns the typed result and oclif prints it),
 * `--debug`, the settings and SDK client built on first use, and one error path — an expected
 * error prints one escaped line with its request id and exits with a documented code (EXIT);
 * only `--debug` shows stacks.
 */
export abstract class SvcCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true;
  static override baseFlags = {
    debug: Flags.boolean({ description: 'Print stack traces and request details on errors.', helpGroup: 'GLOBAL' }),
  };

  protected flags!: CommandFlags<T>;
  protected args!: CommandArgs<T>;
  private settingsValue: CliSettings | undefined;
  private clientValue: SvcClient | undefined;
  private runnerValue: OperationRunner | undefined;

  override async init(): Promise<void> {
    await super.init();
    const { flags, args } = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof SvcCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    });
    this.flags = flags as CommandFlags<T>;
    this.args = args as CommandArgs<T>;
  }

  protected get settings(): CliSettings {
    this.settingsValue ??= loadCliSettings(process.env, { server: (this.flags as { server?: string }).server });
    return this.settingsValue;
  }

  protected get client(): SvcClient {
    this.clientValue ??= new SvcClient({ settings: this.settings, userAgent: this.config.userAgent });
    return this.clientValue;
  }

  protected get runner(): OperationRunner {
    this.runnerValue ??= new OperationRunner(this.client, new BackgroundForwardSessions(this.settings, this.config));
    return this.runnerValue;
  }

  /** Human output only: nothing under --json. */
  protected human(text: string): void {
    if (!this.jsonEnabled()) this.log(text);
  }

  /** A line on stderr (notes, progress words), never under --json. */
  protected note(text: string): void {
    if (!this.jsonEnabled()) process.stderr.write(`${text}\n`);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (error instanceof Errors.ExitError) throw error;
    // oclif's own usage errors (unknown flag, missing argument) carry their exit code (2).
    const oclifExit = (error as { oclif?: { exit?: number } }).oclif?.exit;
    const code = oclifExit ?? exitCodeFor(error);
    process.exitCode = code;
    const expected = error instanceof DomainError || error instanceof CredentialsFileError || oclifExit !== undefined || (error as { code?: string }).code === 'IDP_UNREACHABLE';
    const requestId = error instanceof ApiError ? error.requestId : (error as { requestId?: string }).requestId;
    if (this.jsonEnabled()) {
      const domain = error instanceof DomainError ? error : undefined;
      this.logJson({ error: { code: domain?.code ?? 'INTERNAL', message: error.message, ...(requestId ? { requestId } : {}), exit_code: code } });
    } else {
      const suffix = requestId ? ` (request ${requestId})` : '';
      process.stderr.write(`Error: ${escapeTerminal(error.message)}${suffix}\n`);
      if (!expected && !this.flags?.debug) process.stderr.write('This looks like a bug in svc; run again with --debug for details.\n');
    }
    if (this.flags?.debug && error.stack) process.stderr.write(`${error.stack}\n`);
    return undefined;
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    await this.clientValue?.close();
    return super.finally(error);
  }
}

export { EXIT };
