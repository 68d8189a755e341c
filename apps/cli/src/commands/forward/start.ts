import { OperationResults } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { paramArg } from '../../catalog-flags';
import { deviceArg } from '../../flags';
import { withSpinner } from '../../forward/wait-spinner';
import { escapeTerminal } from '../../output/terminal-text';

export default class ForwardStart extends SvcCommand<typeof ForwardStart> {
  static override summary = 'Start a forward session in the background.';
  static override description = `The same specs as "svc forward" (<local>:<remote>, several allowed), held by a background svc process that outlives this command. It returns once every listener is up and prints the session id; a local port that is taken, a bad spec or a device you cannot reach fails at once (exit 2). "svc forward list" shows the open sessions, "svc forward stop <id>" ends one. The session's own output goes to ~/.config/svc/forwards/<id>.log.`;
  static override examples = ['<%= config.bin %> forward start edge-1 8080:80', '<%= config.bin %> forward start edge-1 5432:5432 6379:6379 --json'];
  static override strict = false;
  static override usage = '<%= command.id %> <device> <spec>…';
  static override args = {
    device: deviceArg('forward_start'),
    spec: paramArg('forward_start', 'specs', { description: 'forward specs (<local>:<remote>, several allowed)' }),
  };

  async run(): Promise<OperationResults['forward_start']> {
    const { argv } = await this.parse(ForwardStart);
    const [device, ...specs] = argv as string[];
    const started = await withSpinner('Starting the forward', this.jsonEnabled(), () => this.runner.run('forward_start', { device, specs }));
    this.human(`Started ${started.session_id} to ${escapeTerminal(started.device)}: ${started.targets.join(', ')}`);
    this.note(`Stop it with: svc forward stop ${started.session_id}`);
    return started;
  }
}
