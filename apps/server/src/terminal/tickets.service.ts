import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { Capability, findSubRoute, ForbiddenError, parseExecArgs, parseShellArgs, UnauthenticatedError } from '@svc/common';
import type { UserPrincipal } from '../auth/principal';
import { AccessPolicy } from '../authorization/access-policy.service';
import type { AuthorizeDevice } from '../authorization/authorize-device';
import { Clock } from '../common/clock';
import { SERVER_CONFIG, ServerConfig } from '../config/server-config';
import { TunnelRegistry } from '../relay/tunnel-registry.service';
import { TICKET_TTL_MS, TicketStore } from '../common/ticket-store';
import { TICKET_STREAMS } from './ticket-input';
import type { TicketOperation, TicketRecord } from './ticket-record';
import { allowedOrigin } from './web-origins';

/** The WebSocket route a ticket opens. */
export const TERMINAL_WS_PATH = '/api/ws';

/** The request body of POST /api/tickets without `device` and `operation`: the stream's arguments. */
export type TicketArguments = Record<string, unknown>;

export interface IssuedTicket {
  ticket: string;
  expires_at: string;
  url: string;
}

/** Per operation: the runtime's own rules for the stream's arguments, applied at issue time as the stream's service applies them when it opens. */
const RUNTIME_RULES: Record<TicketOperation, (args: TicketArguments) => object> = {
  device_shell: (args) => parseShellArgs(args),
  device_exec: (args) => parseExecArgs(args),
};

function capabilityOfTicket(operation: TicketOperation): Capability {
  return findSubRoute(TICKET_STREAMS[operation])!.capability;
}

const REFUSED = 'Terminal ticket missing, unknown, already used or expired; ask POST /api/tickets for a new one';

/**
 * Single-use tickets for the browser's terminal WebSocket. Issued to a bearer-authenticated user
 * for one device, operation and origin after AccessPolicy allowed the operation's capability; 256
 * random bits, stored only as their SHA-256, alive TICKET_TTL_MS, spent by the first presentation,
 * which must come from the same user (its access token travels in a subprotocol, bridge-protocol.ts).
 */
@Injectable()
export class TicketsService {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly policy: AccessPolicy,
    private readonly registry: TunnelRegistry,
    private readonly store: TicketStore,
    private readonly clock: Clock,
  ) {}

  /** `args` as ticketInput checked them against the stream's catalog schema. */
  async issue(principal: UserPrincipal, device: string, operation: TicketOperation, args: TicketArguments, headers: IncomingHttpHeaders): Promise<IssuedTicket> {
    const origin = allowedOrigin(headers, this.config.webOrigins);
    const checked = RUNTIME_RULES[operation](args);
    const { device: record } = await this.policy.requireDevice(principal, device, capabilityOfTicket(operation));
    this.registry.require(record.id); // an offline device is a clear 503 now, not a closed socket later
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = this.clock.now().getTime() + TICKET_TTL_MS;
    const stored: TicketRecord = { principal, deviceId: record.id, operation, args: { ...checked }, origin, expiresAt };
    await this.store.put(ticketHash(ticket), JSON.stringify(stored), expiresAt);
    const url = new URL(`${TERMINAL_WS_PATH}?ticket=${ticket}`, origin.replace(/^http/, 'ws'));
    return { ticket, expires_at: new Date(expiresAt).toISOString(), url: url.toString() };
  }

  /**
   * Spends a ticket presented with a WebSocket upgrade by `presenter` (authenticated from the
   * upgrade's bearer subprotocol): whatever the outcome, it cannot be used again. Unknown, used or
   * expired: 401; presented from another origin than it was issued to, or by another user than
   * the one it was issued to: 403 (a ticket in someone else's hands has leaked, so it dies there).
   * The stream then opens as the presenter, whose memberships are the current ones.
   */
  async redeem(ticket: string | null, headers: IncomingHttpHeaders, presenter: UserPrincipal): Promise<TicketRecord> {
    const stored = ticket ? await this.store.take(ticketHash(ticket)) : null;
    const record = stored === null ? null : (JSON.parse(stored) as TicketRecord);
    if (!record || record.expiresAt <= this.clock.now().getTime()) throw new UnauthenticatedError(REFUSED);
    const origin = allowedOrigin(headers, this.config.webOrigins);
    if (origin !== record.origin) throw new ForbiddenError(`Access denied: this ticket was issued to ${record.origin}, not to ${origin}`);
    if (presenter.email !== record.principal.email) throw new ForbiddenError('Access denied: this ticket was issued to another user; it is spent now');
    return { ...record, principal: presenter };
  }

  /** AccessPolicy's decision for a redeemed ticket, taken again when its stream opens (access may have changed since). */
  authorizer(ticket: TicketRecord): AuthorizeDevice {
    return () => this.policy.requireDevice(ticket.principal, ticket.deviceId, capabilityOfTicket(ticket.operation));
  }
}

function ticketHash(ticket: string): string {
  return createHash('sha256').update(ticket, 'utf8').digest('hex');
}
