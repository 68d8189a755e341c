#!/usr/bin/env node
import { logoutRuntime, runRuntime } from './runtime-command';
import { serviceCommand } from './service/service-command';

const USAGE = `Usage: svc runtime <command>

Commands:
  run      register this device (once) and keep its tunnel to the server open
  logout   remove this device's credentials
  enable   install and start a systemd unit running "run", so the runtime survives reboots
  disable  stop and remove that unit
  status   the runtime running here (pid, device, server, carrier, uptime), the unit, the registration

"svc runtime <command> --help" shows a command's options.`;

/** `node apps/runtime/dist/main.js run|logout|enable|disable|status [flags]`; `svc runtime …` wraps the same functions. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'run') return runRuntime(rest);
  if (command === 'logout') return logoutRuntime(rest);
  if (command === 'enable' || command === 'disable' || command === 'status') {
    return serviceCommand(command, rest, process.env, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(`Unknown command "${command}".\n${USAGE}\n`);
  return 2;
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
