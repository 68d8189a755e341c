import { Module } from '@nestjs/common';
import { AuthenticationModule } from '../authentication/authentication.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { Clock } from '../common/clock';
import { GatewayModule } from '../gateway/gateway.module';
import { TunnelStateModule } from '../relay/tunnel-state.module';
import { TerminalBridge } from './terminal-bridge';
import { InProcessTicketStore, SHARED_TICKET_STORE, TicketStore } from '../common/ticket-store';
import { TicketsController } from './tickets.controller';
import { TicketsService } from './tickets.service';

/**
 * The browser's terminal: tickets (POST /api/tickets) and the WebSocket bridge (/api/ws) to the
 * shell and exec streams. Tickets live in the replicas' NATS KV when a global module provides
 * SHARED_TICKET_STORE, in this process otherwise.
 */
@Module({
  imports: [AuthenticationModule, AuthorizationModule, TunnelStateModule, GatewayModule],
  controllers: [TicketsController],
  providers: [
    TicketsService,
    TerminalBridge,
    {
      provide: TicketStore,
      useFactory: (clock: Clock, shared?: TicketStore) => shared ?? new InProcessTicketStore(() => clock.now().getTime()),
      inject: [Clock, { token: SHARED_TICKET_STORE, optional: true }],
    },
  ],
})
export class TerminalModule {}
