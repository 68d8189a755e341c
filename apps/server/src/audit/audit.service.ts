import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { AuditEntry } from '@svc/common';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { Clock, DAY_MS } from '../common/clock';
import type { AuditRecord } from '../storage/records';
import { AuditRepository } from './audit.repository';
import { AuditWriter } from './audit-writer';
import { actorName, Principal } from '../auth/principal';
import type { AuditAction } from './audit-actions';
import { requestViaBrowser, requestViaMcp } from '../logging/request-context';

/** Appended to the details of every entry caused by a request from `svc mcp`. */
export const VIA_MCP_SUFFIX = ' (via MCP)';
/** Appended to the details of every entry caused by a browser's terminal or exec session (the WebSocket bridge). */
export const VIA_BROWSER_SUFFIX = ' (via browser)';

export interface AuditSubject {
  deviceId?: string;
  orgId?: string;
  details: string;
  /** On `device.removed`: the removed device's owner and history start, so that owner keeps reading its log. */
  removed?: { ownerScope: string; historySince: Date };
}

/** Writes audit entries; every mutating action and every device interaction goes through here. */
@Injectable()
export class AuditService {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly repository: AuditRepository,
    private readonly writer: AuditWriter,
    private readonly clock: Clock,
  ) {}

  /**
   * Inside a storage transaction the entry is written in it; otherwise it is queued and written
   * a turn later (AuditWriter), and this resolves at once.
   */
  async record(actor: Principal | string, action: AuditAction, subject: AuditSubject): Promise<void> {
    const timestamp = this.clock.now();
    await this.writer.write({
      id: randomUUID(),
      timestamp,
      user: typeof actor === 'string' ? actor : actorName(actor),
      action,
      deviceId: subject.deviceId ?? null,
      orgId: subject.orgId ?? null,
      details: `${subject.details}${requestViaMcp() ? VIA_MCP_SUFFIX : ''}${requestViaBrowser() ? VIA_BROWSER_SUFFIX : ''}`,
      expiresAt: new Date(timestamp.getTime() + this.config.auditRetentionDays * DAY_MS),
      ...(subject.removed ? { formerOwnerScope: subject.removed.ownerScope, formerHistorySince: subject.removed.historySince } : {}),
    });
  }

  /** When `action` was last recorded for a device (e.g. its last removal), or null. */
  async lastRecorded(deviceId: string, action: AuditAction): Promise<Date | null> {
    await this.writer.flush();
    return (await this.repository.latest(deviceId, action))?.timestamp ?? null;
  }

  /** A device id's `device.removed` entries, newest first: who owned it, and its history's start (AccessPolicy). */
  async removals(deviceId: string): Promise<AuditRecord[]> {
    await this.writer.flush();
    return this.repository.removals(deviceId);
  }

  async forDevice(deviceId: string, query: { since?: Date; until?: Date; max: number }): Promise<AuditEntry[]> {
    await this.writer.flush();
    const entries = await this.repository.forDevice({ deviceId, ...query });
    return entries.map((e) => ({ timestamp: e.timestamp.toISOString(), user: e.user, action: e.action, details: e.details }));
  }
}
