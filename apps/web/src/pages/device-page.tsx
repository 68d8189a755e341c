import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import { capabilitiesOn, deviceStatus, showDevice } from '../api/devices';
import { ErrorBox, Loading, StatusBadge } from '../components/feedback';
import { useLiveReload } from '../components/live';
import { useLoad } from '../components/use-load';
import { formatLastSeen, formatUptime } from '../format';
import { AccessPanel } from './access-panel';
import { AuditPanel } from './audit-panel';
import { DeploymentsPanel } from './deployments-panel';
import { FilesPanel } from './files-panel';
import { RunCommand } from './run-command';
import { LazyTerminalPanel } from './lazy-terminal-panel';

/**
 * One device: its status card, and the controls its caller's capabilities allow (as the server
 * reports them; the routes refuse the rest anyway). Later panels (terminal, files, deployments)
 * slot in below the same way, each behind its capability.
 */
export function DevicePage({ api, id }: { api: ApiClient; id: string }) {
  const device = useLoad(async () => {
    const [info, status, access] = await Promise.all([showDevice(api, id), deviceStatus(api, id), capabilitiesOn(api, id)]);
    return { info, status, access };
  }, id);
  useLiveReload(['device.online', 'device.offline', 'access.changed'], device.reload, { device: id });
  // Once shown, the terminal stays while the device goes offline: its session's end (exit code, or
  // why it closed) must stay readable, and Reconnect says what happens then.
  const [terminalShown, setTerminalShown] = useState(false);

  if (device.error) return <ErrorBox error={device.error} onRetry={device.reload} />;
  if (!device.data) return <Loading what="the device" />;
  const { info, status, access } = device.data;
  const may = (capability: string) => access.capabilities.includes(capability);
  if (status.status === 'online' && !terminalShown) setTerminalShown(true);

  return (
    <section aria-labelledby="device-title">
      <p>
        <a href="#/devices">← Devices</a>
      </p>
      <h1 id="device-title">{info.name}</h1>
      <div class="card status-card" aria-label="Status">
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <StatusBadge status={status.status} />
          </dd>
          <dt>Health</dt>
          <dd>{status.health}</dd>
          <dt>Uptime</dt>
          <dd>{formatUptime(status.status === 'online' ? status.uptime : null)}</dd>
          <dt>Last seen</dt>
          <dd>{formatLastSeen(status.last_seen)}</dd>
          <dt>Carrier</dt>
          <dd>{status.carrier ? `${status.carrier.toUpperCase()}${status.carrier_note ? ` (${status.carrier_note})` : ''}` : '—'}</dd>
          <dt>Owner</dt>
          <dd>{info.owner}</dd>
          <dt>Device id</dt>
          <dd>
            <code>{info.id}</code>
          </dd>
          <dt>Your role</dt>
          <dd data-role={access.role}>{access.owner ? 'owner' : access.role}</dd>
        </dl>
        <button type="button" class="secondary" onClick={device.reload}>
          Refresh
        </button>
      </div>
      {may('device:exec') && (terminalShown ? <LazyTerminalPanel api={api} device={info.id} /> : <p class="hint">The terminal opens when the device is online.</p>)}
      {may('device:exec') ? (
        <RunCommand api={api} device={info.id} />
      ) : (
        <p class="hint">Your role ({access.role}) may view this device only: running commands and changing files are not offered.</p>
      )}
      {may('device:read-files') && (status.status === 'online' ? <FilesPanel api={api} device={info.id} canWrite={may('device:write-files')} /> : <p class="hint">Files can be browsed when the device is online.</p>)}
      <DeploymentsPanel api={api} device={info.id} canDeploy={may('device:deploy')} />
      <AccessPanel api={api} device={info.id} canManage={may('device:manage')} />
      <AuditPanel api={api} device={info.id} />
    </section>
  );
}
