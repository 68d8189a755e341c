import { FileEntry } from '@svc/common';
import { SvcCommand } from '../base-command';
import { paramArg } from '../catalog-flags';
import { formatBytes } from '../output/human-units';
import { renderTable } from '../output/table';

export default class Ls extends SvcCommand<typeof Ls> {
  static override summary = 'List a directory on a device, or show one file.';
  static override description = `The path is <device>:<path>; an empty path (edge-1:) is the runtime's home directory, and a device id containing ":" is written in brackets ([id:with:colons]:/path). A file is listed alone, named as given (as ls does).

Each entry shows its permissions (type d for a directory, l for a symbolic link, described by its target), its size, its modification time (UTC) and its name, with "/" after directories. Names are shown with control characters escaped; --json prints them as they are: [{name, is_dir, size, mode, mtime, is_symlink}], mode the permission bits and mtime in milliseconds since the epoch.`;
  static override examples = ['<%= config.bin %> ls edge-1:/var/log', '<%= config.bin %> ls edge-1:', '<%= config.bin %> ls edge-1:/etc/hostname', '<%= config.bin %> ls edge-1:/etc --json'];
  static override args = { path: paramArg('device_ls', 'path', { description: '<device>:<path> of a directory or a file' }) };

  async run(): Promise<FileEntry[]> {
    const entries = await this.client.files().ls(this.args.path);
    if (entries.length === 0) this.human('Empty directory.');
    else
      this.human(
        renderTable(entries, [
          { header: 'mode', get: modeText },
          { header: 'size', get: (e) => (e.is_dir ? undefined : formatBytes(e.size)) },
          { header: 'modified', get: (e) => `${new Date(e.mtime).toISOString().slice(0, 19)}Z` },
          { header: 'name', get: (e) => (e.is_dir ? `${e.name}/` : e.name) },
        ]),
      );
    return entries;
  }
}

/** `ls -l`'s permission column: type, then rwx for owner, group and others with setuid, setgid and sticky. */
function modeText(entry: FileEntry): string {
  const type = entry.is_symlink ? 'l' : entry.is_dir ? 'd' : '-';
  const triple = (shift: number, special: number, mark: string) => {
    const executable = (entry.mode >> shift) & 1;
    const last = entry.mode & special ? (executable ? mark : mark.toUpperCase()) : executable ? 'x' : '-';
    return `${(entry.mode >> shift) & 4 ? 'r' : '-'}${(entry.mode >> shift) & 2 ? 'w' : '-'}${last}`;
  };
  return `${type}${triple(6, 0o4000, 's')}${triple(3, 0o2000, 's')}${triple(0, 0o1000, 't')}`;
}
