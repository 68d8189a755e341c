import { InvalidInputError } from '@svc/common';
import { SvcCommand } from '../base-command';
import { paramArg } from '../catalog-flags';
import { withTransferProgress } from '../output/transfer-progress';

export default class Cp extends SvcCommand<typeof Cp> {
  static override summary = 'Copy a file to a device, from a device, or between two devices.';
  static override description = `A path is local, or <device>:<path> on a device (an empty path is the runtime's home directory; a device id containing ":" is written in brackets: [id:with:colons]:/path). At least one side is on a device. A directory as the target receives the file under its own name; a target ending in "/" must be an existing directory. Missing parent directories of a file target are created. Directories are copied with "svc sync".

The copy keeps the file's permissions (but not setuid, setgid or sticky, as cp without -p) and modification time, is checked end to end by SHA-256, and replaces the target atomically: an interrupted copy leaves the old file as it was. A target that is a symbolic link is written through to the file it points to (the link stays); a device, FIFO or socket (/dev/stdout, /dev/null) is written in place. "-" as the source reads stdin, as the target writes to stdout. Only regular files are read: a FIFO or device on the device is refused.

On a terminal a progress bar (rate, time left) is drawn on stderr; nothing is printed otherwise. --json prints {"status": "copied"}.`;
  static override examples = [
    '<%= config.bin %> cp ./app.tar.gz edge-1:/opt/app/',
    '<%= config.bin %> cp edge-1:/var/log/syslog ./edge-1-syslog',
    '<%= config.bin %> cp edge-1:/etc/app.conf edge-2:/etc/app.conf',
    '<%= config.bin %> cp ./config.yaml edge-1:config.yaml --json',
    '<%= config.bin %> cp edge-1:/etc/hostname -',
    'echo 42 | <%= config.bin %> cp - edge-1:/tmp/answer',
  ];
  static override args = {
    source: paramArg('device_cp', 'source', { description: 'local path or <device>:<path> of the file' }),
    dest: paramArg('device_cp', 'dest', { description: 'local path or <device>:<path>: the file, or a directory to copy into' }),
  };

  async run(): Promise<{ status: 'copied' }> {
    if (this.args.dest === '-' && this.jsonEnabled()) throw new InvalidInputError('--json cannot be used with "-" as the target: stdout carries the file');
    return withTransferProgress('Copying', this.jsonEnabled(), (onProgress) =>
      this.client.files().cp(this.args.source, this.args.dest, { onProgress, stdio: { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr } }),
    );
  }
}
