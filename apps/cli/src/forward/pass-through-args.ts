import { InvalidInputError } from '@svc/common/errors';

/**
 * The words after `--` on the command line (`svc exec edge-1 -- ls -la`): passed on untouched, so
 * they may look like svc's own flags. Whether the device argument came before `--` tells a single
 * target from a batch, where oclif would otherwise take the first remote word as the device.
 */
export function passThrough(argv: string[], device: string | undefined, what: string): { command: string[]; device: string | undefined } {
  const dashes = argv.indexOf('--');
  if (dashes < 0) throw new InvalidInputError(`Put the ${what} after "--", e.g. svc exec edge-1 -- uname -a`);
  const command = argv.slice(dashes + 1);
  if (command.length === 0) throw new InvalidInputError(`Give the ${what} after "--"`);
  const before = argv.slice(0, dashes);
  return { command, device: device !== undefined && before.includes(device) ? device : undefined };
}
