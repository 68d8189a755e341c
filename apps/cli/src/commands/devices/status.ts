import { BatchItem, DeviceStatusResult } from '@svc/common';
import { EXIT, SvcCommand } from '../../base-command';
import { batchDeviceArg, batchTarget, devicesFlag } from '../../flags';
import { formatDuration } from '../../output/human-units';
import { renderTable } from '../../output/table';

type StatusRow = BatchItem<DeviceStatusResult>;

export default class DevicesStatus extends SvcCommand<typeof DevicesStatus> {
  static override summary = 'Connection status, health, uptime, carrier and last contact of devices.';
  static override description = `Exit code: 0 when every device is online and healthy, 1 when some are not (or could not be found), 2 when the command failed (3: not logged in).`;
  static override examples = ['<%= config.bin %> devices status edge-1', '<%= config.bin %> devices status --devices edge-1,edge-2 --json', '<%= config.bin %> devices status edge-1 && echo ready'];
  static override args = { device: batchDeviceArg('device_status', 'device name or id') };
  static override flags = { devices: devicesFlag('device_status') };

  async run(): Promise<DeviceStatusResult | { results: StatusRow[] }> {
    const target = batchTarget(this.args.device, this.flags.devices);
    const answer = await this.runner.run('device_status', target);
    const rows: StatusRow[] = 'results' in answer ? answer.results : [{ device: this.args.device!, ...answer }];
    this.human(
      renderTable(rows, [
        { header: 'device', get: (r) => r.device },
        { header: 'status', get: (r) => ('error' in r ? `error: ${r.error}` : r.status) },
        { header: 'health', get: (r) => ('error' in r ? '' : r.health) },
        { header: 'uptime', get: (r) => ('error' in r || r.uptime === null ? '' : formatUptime(r.uptime)) },
        { header: 'carrier', get: (r) => ('error' in r ? '' : (r.carrier ?? '')) },
        { header: 'last seen', get: (r) => ('error' in r ? '' : lastSeen(r)) },
      ]) + carrierNotes(rows),
    );
    const allGood = rows.every((r) => !('error' in r) && r.status === 'online' && r.health === 'healthy');
    if (!allGood) process.exitCode = EXIT.NEGATIVE;
    return answer;
  }
}

/** "now" while the tunnel is up; otherwise when the device was last heard from (its last heartbeat, within 30 s), and how long ago. */
function lastSeen(row: DeviceStatusResult): string {
  if (row.status === 'online') return 'now';
  if (row.last_seen === null) return 'never';
  return `${row.last_seen} (${formatDuration(Math.max(0, (Date.now() - Date.parse(row.last_seen)) / 1000))} ago)`;
}

/** Why a device is not on QUIC, as its runtime said (e.g. no QUIC binding on its platform): one line each. */
function carrierNotes(rows: StatusRow[]): string {
  return rows.map((r) => ('error' in r || !r.carrier_note ? '' : `\n${r.device}: ${r.carrier_note}`)).join('');
}

function formatUptime(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d > 0 ? `${d}d ${h}h` : h > 0 ? `${h}h ${m}m` : `${m}m ${Math.floor(seconds % 60)}s`;
}
