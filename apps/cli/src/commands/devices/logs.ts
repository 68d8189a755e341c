import { AuditEntry, AuditLogsResult, BatchItem } from '@svc/common';
import { SvcCommand } from '../../base-command';
import { integerFlag } from '../../catalog-flags';
import { batchDeviceArg, batchTarget, devicesFlag, timeFlag } from '../../flags';
import { renderTable } from '../../output/table';

export default class DevicesLogs extends SvcCommand<typeof DevicesLogs> {
  static override summary = 'Audit log of devices: who did what, when.';
  static override examples = ['<%= config.bin %> devices logs edge-1', '<%= config.bin %> devices logs edge-1 --since 2026-11-01T00:00:00Z --max 500', '<%= config.bin %> devices logs edge-1 --since yesterday --until 2h', '<%= config.bin %> devices logs edge-1 --since "1h 30m ago"', '<%= config.bin %> devices logs --devices edge-1,edge-2 --json'];
  static override args = { device: batchDeviceArg('device_audit_logs', 'device name or id') };
  static override flags = {
    devices: devicesFlag('device_audit_logs'),
    since: timeFlag('device_audit_logs', 'since', 'from this time on (inclusive)'),
    until: timeFlag('device_audit_logs', 'until', 'before this time (exclusive)'),
    max: integerFlag('device_audit_logs', 'max', { description: 'at most this many entries per device' }),
  };

  async run(): Promise<AuditLogsResult | { results: BatchItem<AuditLogsResult>[] }> {
    const answer = await this.runner.run('device_audit_logs', {
      ...batchTarget(this.args.device, this.flags.devices),
      since: this.flags.since,
      until: this.flags.until,
      max: this.flags.max,
    });
    const rows: (AuditEntry & { device: string })[] =
      'results' in answer
        ? answer.results.flatMap((r) => ('error' in r ? [{ device: r.device, timestamp: '', user: '', action: 'error', details: r.error }] : r.logs.map((log) => ({ device: r.device, ...log }))))
        : answer.logs.map((log) => ({ device: this.args.device!, ...log }));
    if (rows.length === 0) this.human('No entries.');
    else
      this.human(
        renderTable(rows, [
          ...('results' in answer ? [{ header: 'device', get: (r: AuditEntry & { device: string }) => r.device }] : []),
          { header: 'time', get: (r) => r.timestamp },
          { header: 'user', get: (r) => r.user },
          { header: 'action', get: (r) => r.action },
          { header: 'details', get: (r) => r.details },
        ]),
      );
    return answer;
  }
}
