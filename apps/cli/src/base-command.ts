import { Command, Errors, Flags, Interfaces, toConfiguredId, ux } from '@oclif/core';
import { escapeJsonControls } from '@svc/common/control-chars';
import { CredentialsFileError } from '@svc/common/credentials-file';
import { DomainError } from '@svc/common/errors';
import { CliSettings, loadCliSettings } from './config/cli-settings';
import { EXIT, exitCodeFor } from './exit-codes';
import { escapeTerminal } from './output/terminal-text';
import { asUsageError, usageErrorLines, usageExitCode } from './output/usage-error';
import { inCommandWords } from './output/command-wording';
import type { OperationRunner } from './sdk/operation-runner';
import type { SvcClient } from './sdk/svc-client';

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
  /** The parameter of the command's operation it takes from the words after `--` (exec's command, docker's args), not from a flag. */
  static passThroughParam?: string;

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
    }).catch((error: unknown) => {
      throw asUsageError(error);
    });
    this.flags = flags as CommandFlags<T>;
    this.args = args as CommandArgs<T>;
  }

  protected get settings(): CliSettings {
    this.settingsValue ??= loadCliSettings(process.env, { server: (this.flags as { server?: string }).server });
    return this.settingsValue;
  }

  // The SDK and the operation runner are loaded on first use, not at start-up: `svc --help` needs
  // neither, and `svc exec` does not need the runner (which brings the deploy-file reader).
  protected get client(): SvcClient {
    if (!this.clientValue) {
      const { SvcClient } = require('./sdk/svc-client') as typeof import('./sdk/svc-client');
      this.clientValue = new SvcClient({ settings: this.settings, userAgent: this.config.userAgent });
    }
    return this.clientValue;
  }

  protected get runner(): OperationRunner {
    if (!this.runnerValue) {
      const { OperationRunner } = require('./sdk/operation-runner') as typeof import('./sdk/operation-runner');
      const { BackgroundForwardSessions } = require('./forward/background-sessions') as typeof import('./forward/background-sessions');
      this.runnerValue = new OperationRunner(this.client, new BackgroundForwardSessions(this.settings, this.config));
    }
    return this.runnerValue;
  }

  /** --json output, with the control characters JSON.stringify leaves raw (C1, bidi) escaped as well. */
  override logJson(json: unknown): void {
    ux.stdout(escapeJsonControls(ux.colorizeJson(json, { pretty: true, theme: this.config.theme?.json })));
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
    const usageExit = usageExitCode(error);
    const code = usageExit ?? exitCodeFor(error);
    process.exitCode = code;
    const expected = error instanceof DomainError || error instanceof CredentialsFileError || usageExit !== undefined || (error as { code?: string }).code === 'IDP_UNREACHABLE';
    const requestId = (error as { requestId?: unknown }).requestId;
    const requestSuffix = typeof requestId === 'string' ? ` (request ${requestId})` : '';
    const text = inCommandWords(error.message, this.config.bin);
    if (this.jsonEnabled()) {
      const errorCode = error instanceof DomainError ? error.code : usageExit !== undefined ? 'INVALID_INPUT' : 'INTERNAL';
      const message = usageExit !== undefined ? usageErrorLines(error.message).join('\n') : text;
      this.logJson({ error: { code: errorCode, message, ...(requestSuffix ? { requestId } : {}), exit_code: code } });
    } else if (usageExit !== undefined) {
      // Real lines (oclif's lists and hints), each escaped: the words typed are in them.
      const [first, ...rest] = usageErrorLines(error.message).map(escapeTerminal);
      const help = this.id ? [`See more help with ${this.config.bin} ${toConfiguredId(this.id, this.config)} --help`] : [];
      process.stderr.write(`${[`Error: ${first}`, ...rest, ...help].join('\n')}\n`);
    } else {
      process.stderr.write(`Error: ${escapeTerminal(text)}${requestSuffix}\n`);
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
