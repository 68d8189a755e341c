import { Args } from '@oclif/core';
import { SvcCommand } from '../base-command';
import { withTransferProgress } from '../output/transfer-progress';

export default class Cp extends SvcCommand<typeof Cp> {
  static override summary = 'Copy a file to a device, from a device, or between two devices.';
  static override description = `A path is local, or <device>:<path> on a device (an empty path is the runtime's home directory; a device id containing ":" is written in brackets: [id:with:colons]:/path). At least one side is on a device. A directory as the target receives the file under its own name; missing parent directories are created. Directories are copied with "svc sync".

The copy keeps the file's permissions and modification time, is checked end to end by SHA-256, and replaces the target atomically: an interrupted copy leaves the old file as it was.

On a terminal a progress bar (rate, time left) is drawn on stderr; nothing is printed otherwise. --json prints {"status": "copied"}.`;
  static override examples = [
    '<%= config.bin %> cp ./app.tar.gz edge-1:/opt/app/',
    '<%= config.bin %> cp edge-1:/var/log/syslog ./edge-1-syslog',
    '<%= config.bin %> cp edge-1:/etc/app.conf edge-2:/etc/app.conf',
    '<%= config.bin %> cp ./config.yaml edge-1:config.yaml --json',
  ];
  static override args = {
    source: Args.string({ description: 'local path or <device>:<path> of the file', required: true }),
    dest: Args.string({ description: 'local path or <device>:<path>: the file, or a directory to copy into', required: true }),
  };

  async run(): Promise<{ status: 'copied' }> {
    return withTransferProgress('Copying', this.jsonEnabled(), (onProgress) => this.client.files().cp(this.args.source, this.args.dest, { onProgress }));
  }
}
