import type { UserPrincipal } from '../auth/principal';

export type TicketOperation = 'device_shell' | 'device_exec';

/** What a ticket stands for; the browser holds only the random ticket, the store keys its hash. */
export interface TicketRecord {
  /** The caller as authenticated when the ticket was issued. */
  principal: UserPrincipal;
  deviceId: string;
  operation: TicketOperation;
  /** The stream's arguments as checked at issue time (parseShellArgs / parseExecArgs). */
  args: Record<string, unknown>;
  /** The `Origin` of the request that got the ticket; the WebSocket upgrade must come from it. */
  origin: string;
  /** Milliseconds since the epoch, on the server's clock. */
  expiresAt: number;
}
