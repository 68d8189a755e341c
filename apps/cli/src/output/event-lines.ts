import type { FleetStreamEvent } from '../sdk/event-stream';
import { escapeTerminal } from './terminal-text';

/**
 * One human line per event of GET /events: its time, its type and what it is about. Every value
 * comes from the server, and names and host names from devices, so every one is escaped.
 */
export function eventLine(event: FleetStreamEvent): string {
  const d = event.data;
  const text = (key: string) => escapeTerminal(String(d[key] ?? '?'));
  const device = d.device_id === undefined ? '' : `${d.device === null || d.device === undefined ? '' : `${text('device')} `}(${text('device_id')})`;
  const head = `${text('at')}  ${escapeTerminal(event.type)}`;
  switch (event.type) {
    case 'device.online':
    case 'device.offline':
      return `${head}  ${device}`;
    case 'registration.pending':
      return `${head}  ${device} for ${text('owner_scope')}: request ${text('request_id')} from ${text('hostname')} at ${text('source_address')}, key ${text('fingerprint')}`;
    case 'registration.approved':
    case 'registration.rejected':
      return `${head}  ${device} for ${text('owner_scope')}: request ${text('request_id')} by ${text('decided_by')}`;
    case 'deployment.status':
      return `${head}  ${device}: deployment ${text('deployment_id')} ${text('state')}, ${text('health')}`;
    case 'access.changed':
      return d.org_id !== undefined
        ? `${head}  organization ${text('org_id')}: ${text('change')} ${text('email')}${d.role === undefined ? '' : ` as ${text('role')}`}`
        : `${head}  ${device}: ${text('change')} ${d.scope === undefined ? text('owner_scope') : text('scope')}${d.role === undefined ? '' : ` as ${text('role')}`}`;
    case 'reset':
      return `${head}  ${text('reason')}`;
    default:
      return `${head}  ${escapeTerminal(JSON.stringify(d))}`;
  }
}
