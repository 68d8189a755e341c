import { Args, Flags } from '@oclif/core';
import { ForwardSession, InvalidInputError } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { deviceArg } from '../../flags';
import { removeSessionRecord, writeSessionRecord } from '../../forward/background-sessions';
import { listenFailure, parseStdioTarget } from '../../forward/forward-targets';
import { processStart } from '../../forward/process-identity';
import { withSpinner } from '../../forward/wait-spinner';
import { escapeTerminal } from '../../output/terminal-text';
import { forwardStdio } from '../../sdk/local-forwarder';
import { checkForwardAccess, openForwarders, planForward, renderTargets } from '../../sdk/forward-sessions';

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export default class Forward extends SvcCommand<typeof Forward> {
  static override summary = 'Forward local ports or sockets to a device, until Ctrl-C.';
  static override description = `Each spec is <local>:<remote>: 8080:80 (local port 8080 to port 80 on the device), 8080:10.0.0.5:80 (another host on the device's network), 8000-8010:9000-9010 (a range), /tmp/d.sock:/run/docker.sock (unix sockets; the sides may differ in kind). Local ports listen on 127.0.0.1 only. Every connection rides its own stream; the forward runs until Ctrl-C (or SIGTERM) and then exits 0. A local port that is taken fails at once (exit 2).

--json prints {device, specs, targets, status: "started"} as soon as every listener is up.

--stdio <device> <port|host:port|socket> forwards one connection over stdin and stdout instead: the ProxyCommand of ssh, scp and rsync (see "svc ssh-config"). Background sessions: "svc forward start|list|stop".`;
  static override examples = [
    '<%= config.bin %> forward edge-1 8080:80',
    '<%= config.bin %> forward edge-1 5432:db.internal:5432 6379:6379',
    '<%= config.bin %> forward edge-1 /tmp/edge-docker.sock:/run/docker.sock',
    "ssh -o ProxyCommand='<%= config.bin %> forward --stdio edge-1 22' pi@edge-1",
  ];
  static override strict = false;
  static override usage = ['<%= command.id %> <device> <spec>…', '<%= command.id %> --stdio <device> <port|host:port|socket>', '<%= command.id %> start|list|stop …'];
  static override args = {
    device: deviceArg('forward_start'),
    spec: Args.string({ description: 'forward specs (<local>:<remote>, several allowed); with --stdio one port, host:port or socket path' }),
  };
  static override flags = {
    stdio: Flags.boolean({ description: 'forward one connection over stdin/stdout (for ssh ProxyCommand)' }),
    session: Flags.string({ hidden: true, description: 'run as the background session with this id (svc forward start)' }),
  };

  async run(): Promise<void> {
    const { argv } = await this.parse(Forward);
    const [device, ...specs] = argv as string[];
    if (this.flags.stdio) return this.stdio(device, specs);
    planForward(specs);
    const status = await checkForwardAccess(this.client, device);
    if ('status' in status && status.status !== 'online') this.note(`Note: ${escapeTerminal(device)} is ${status.status}; connections fail until it is online.`);
    const forwarders = await withSpinner('Listening', this.jsonEnabled(), async () =>
      openForwarders(await this.client.streams(), device, specs, {
        onConnectionError: (error) => process.stderr.write(`svc: a connection could not be forwarded: ${escapeTerminal(error.message)}\n`),
      }).catch((error: unknown) => {
        throw listenFailure(error);
      }),
    );
    const session: ForwardSession = { session_id: this.flags.session ?? '', device, specs, targets: renderTargets(forwarders) };
    const sessionId = this.flags.session;
    if (sessionId) {
      writeSessionRecord(this.settings, { ...session, pid: process.pid, process_start: processStart(process.pid), started_at: new Date().toISOString() });
      process.once('exit', () => removeSessionRecord(this.settings, sessionId));
    }
    // Listening before anything is printed: a script that stops us as soon as it reads the line
    // must not meet the default action of the signal (death, exit code null).
    const stopped = new Promise<NodeJS.Signals>((resolve) => {
      for (const name of STOP_SIGNALS) process.once(name, () => resolve(name));
    });
    if (this.jsonEnabled()) this.logJson({ device, specs, targets: session.targets, status: 'started' });
    else {
      this.log(`Forwarding to ${escapeTerminal(device)}: ${session.targets.join(', ')}`);
      this.note('Press Ctrl-C to stop.');
    }
    const signal = await stopped;
    await Promise.all(forwarders.map((forwarder) => forwarder.close()));
    if (sessionId) removeSessionRecord(this.settings, sessionId);
    this.note(`Stopped (${signal}).`);
  }

  private async stdio(device: string, targets: string[]): Promise<void> {
    if (targets.length !== 1) throw new InvalidInputError('--stdio takes one target: svc forward --stdio <device> <port|host:port|socket>');
    const target = parseStdioTarget(targets[0]);
    try {
      const outcome = await forwardStdio(await this.client.streams(), device, target, process.stdin, process.stdout);
      if (outcome.aborted) process.exitCode = 2;
    } finally {
      process.stdin.destroy();
    }
  }
}
