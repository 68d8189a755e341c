import { join } from 'node:path';
import { Flags } from '@oclif/core';
import { InvalidInputError } from '@svc/common';
import { SvcCommand } from '../base-command';
import { deviceArg } from '../flags';

/** What ssh_config takes unquoted as a Host pattern, User or device argument. */
const PLAIN_WORD = /^[A-Za-z0-9._:@+-]+$/;

export interface SshConfigResult {
  host: string;
  /** The device's id, whatever name or id it was asked by. */
  device: string;
  user: string | null;
  port: number;
  proxy_command: string;
  config: string;
}

export default class SshConfig extends SvcCommand<typeof SshConfig> {
  static override summary = 'Print an ssh_config Host block that reaches a device through svc.';
  static override description = `Its ProxyCommand runs "svc forward --stdio <device id> <port>" (the id, even when asked by name, so that no device renamed later takes the name's place) with this node and this svc (absolute paths), so plain ssh, scp, rsync and sftp reach the device's sshd over svc without opening any port on the device. Append it to ~/.ssh/config. It checks that the device exists and that you may see it. Host key checking is left to ssh's own settings; the svc server and login come from your svc configuration, as for any svc command.`;
  static override examples = [
    '<%= config.bin %> ssh-config edge-1 --user pi >> ~/.ssh/config && ssh edge-1',
    '<%= config.bin %> ssh-config edge-1 --host-alias edge --user root   # then: scp file edge:/tmp/, rsync -a dir/ edge:dir/',
    '<%= config.bin %> ssh-config edge-1 --port 2222 --json',
  ];
  static override args = { device: deviceArg('forward_start') };
  static override flags = {
    user: Flags.string({ description: 'login user on the device (default: ssh chooses, usually your local user name)' }),
    'host-alias': Flags.string({ description: 'the Host name to type after ssh (default: the device name)' }),
    port: Flags.integer({ description: "port of the device's sshd, on the device's loopback", default: 22, min: 1, max: 65535 }),
  };

  async run(): Promise<SshConfigResult> {
    const { device } = this.args;
    const host = this.flags['host-alias'] ?? device;
    const user = this.flags.user;
    plainWords([['host alias', host], ['user', user ?? '']]);
    // A Host block for a device that does not exist (or that this user may not see) would only fail later, inside ssh.
    // It names the device by id: a name can later match another device (a rename), an id cannot.
    const { id } = await this.runner.run('device_show', { device });
    plainWords([['device id', id]]);
    const proxyCommand = [process.execPath, join(this.config.root, 'bin', 'run.js'), 'forward', '--stdio', id, String(this.flags.port)]
      .map((word, index) => (index < 2 ? shellQuote(word) : word))
      .join(' ');
    const lines = [`Host ${host}`, `  HostName ${id}`, ...(user ? [`  User ${user}`] : []), `  ProxyCommand ${proxyCommand}`];
    const config = `${lines.join('\n')}\n`;
    if (!this.jsonEnabled()) process.stdout.write(config);
    return { host, device: id, user: user ?? null, port: this.flags.port, proxy_command: proxyCommand, config };
  }
}

function plainWords(words: [what: string, value: string][]): void {
  for (const [what, value] of words) {
    if (value !== '' && !PLAIN_WORD.test(value)) throw new InvalidInputError(`The ${what} ${JSON.stringify(value)} cannot be written into an ssh config; use letters, digits and . _ : @ + -`);
  }
}

/**
 * ssh hands ProxyCommand to the user's shell after expanding %-tokens: a path is single-quoted for
 * the shell and its % doubled for ssh.
 */
function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`).replace(/%/g, '%%')}'`;
}
