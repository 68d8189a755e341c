import { SvcCommand } from '../base-command';
import { booleanFlag, paramArg, stringsFlag } from '../catalog-flags';
import { withTransferProgress } from '../output/transfer-progress';
import { escapeTerminal } from '../output/terminal-text';
import { SyncReport } from '../sdk/device-sync';

export default class Sync extends SvcCommand<typeof Sync> {
  static override summary = 'Make a directory on a device match a local one, or the other way round.';
  static override description = `One side is local, the other <device>:<path>. Files whose size or modification time differ are copied, each checked by SHA-256 and replaced atomically, keeping permissions (but not setuid, setgid or sticky) and modification times; a missing destination is created. --delete also removes what the source does not have. --exclude takes gitignore-like patterns ("*.log", "node_modules/", "/build"), matched on both sides: an excluded path is neither copied nor deleted.

Symbolic links (followed by neither side) and FIFOs, sockets and devices in the source are left alone: each is named on stderr ("Skipped <path>: a symbolic link …").

--dry-run lists what would be copied and deleted and changes nothing. Otherwise a summary is printed, with a progress bar on stderr while copying on a terminal. --json prints {status, dry_run, copy, delete, unchanged, skipped?}: the paths copied and deleted (or that would be), relative to the directories, the number of files already equal, and, when there are any, the entries left alone as [{path, type}].`;
  static override examples = [
    '<%= config.bin %> sync ./site edge-1:/srv/www',
    "<%= config.bin %> sync ./app edge-1:/opt/app --delete --exclude node_modules/ --exclude '*.log'",
    '<%= config.bin %> sync edge-1:/var/lib/app/data ./backup --dry-run',
    '<%= config.bin %> sync ./site edge-1:/srv/www --delete --json',
  ];
  static override args = {
    source: paramArg('device_sync', 'source', { description: 'local directory or <device>:<directory>' }),
    dest: paramArg('device_sync', 'dest', { description: 'local directory or <device>:<directory> to update' }),
  };
  static override flags = {
    delete: booleanFlag('device_sync', 'delete', { description: 'remove destination files and directories the source does not have' }),
    'dry-run': booleanFlag('device_sync', 'dry_run', { description: 'show what would be copied and deleted, change nothing' }),
    exclude: stringsFlag('device_sync', 'exclude', { description: 'skip paths matching this gitignore-like pattern (repeatable)' }),
  };

  async run(): Promise<SyncReport> {
    const options = { delete: this.flags.delete, dry_run: this.flags['dry-run'], exclude: this.flags.exclude ?? [] };
    const report = await withTransferProgress('Syncing', this.jsonEnabled(), (onProgress) => this.client.files().sync(this.args.source, this.args.dest, { ...options, onProgress }));
    if (report.dry_run) {
      for (const path of report.copy) this.human(`would copy    ${escapeTerminal(path)}`);
      for (const path of report.delete) this.human(`would delete  ${escapeTerminal(path)}`);
    }
    for (const { path, type } of report.skipped ?? []) this.note(`Skipped ${escapeTerminal(path)}: a ${type} (sync copies regular files and directories only)`);
    this.human(summary(report));
    return report;
  }
}

/** One line for people; under --dry-run the paths come before it. */
function summary(report: SyncReport): string {
  const copied = plural(report.copy.length, 'file', 'files');
  const deleted = plural(report.delete.length, 'entry', 'entries');
  return report.dry_run ? `Would copy ${copied} and delete ${deleted}; ${report.unchanged} unchanged.` : `Copied ${copied}, deleted ${deleted}, ${report.unchanged} unchanged.`;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
