import { findSubRoute, InvalidInputError, inputSchema, ParamSpec, ROUTE_INPUTS, StreamRouteName } from '@svc/common';
import { plainRouteInput, streamArgsInput } from '../common/operation-input';
import type { TicketOperation } from './ticket-record';

/** The catalog client stream each ticket operation opens: its capability and its `args`. */
export const TICKET_STREAMS: Record<TicketOperation, StreamRouteName> = {
  device_shell: 'device_exec.shell',
  device_exec: 'device_exec.stream',
};

export interface TicketInput {
  device: string;
  operation: TicketOperation;
  /** The stream's arguments, checked as the stream route checks its `svc-args`. */
  args: Record<string, unknown>;
}

/**
 * POST /api/tickets' body: `device` and `operation` (ROUTE_INPUTS.terminal_ticket), the rest the
 * arguments of the stream the ticket opens, checked against that stream's catalog `args` by the
 * same validator and with the same 400 as the stream route (ClientStreamRouter): a browser and
 * `svc shell` are held to one contract.
 */
export function ticketInput(body: unknown): TicketInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidInputError('Request body must be a JSON object');
  const { device, operation, ...args } = body as Record<string, unknown>;
  const target = plainRouteInput('terminal_ticket', 'POST', { query: {}, body: defined({ device, operation }) }) as { device: string; operation: TicketOperation };
  const name = TICKET_STREAMS[target.operation];
  return { ...target, args: streamArgsInput(name, findSubRoute(name)!, args) };
}

/** The body as the OpenAPI document shows it: one schema per operation. */
export function ticketInputSchema(): Record<string, unknown> {
  return {
    oneOf: Object.entries(TICKET_STREAMS).map(([operation, name]) => {
      const params: Record<string, ParamSpec> = { ...ROUTE_INPUTS.terminal_ticket, operation: { ...ROUTE_INPUTS.terminal_ticket.operation, enum: [operation] }, ...findSubRoute(name)!.args };
      return inputSchema(params, { limits: true });
    }),
  };
}

function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}
