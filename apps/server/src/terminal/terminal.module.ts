import { Module } from '@nestjs/common';
import { AuthenticationModule } from '../authentication/authentication.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { Clock } from '../common/clock';
import { GatewayModule } from '../gateway/gateway.module';
import { TunnelsModule } from '../replicas/tunnels.module';
import { ReplicasModule } from '../replicas/replicas.module';
import { TerminalBridge } from './terminal-bridge';
import { InProcessTicketStore, SHARED_TICKET_STORE, TicketStore } from '../common/ticket-store';
import { TicketsController } from './tickets.controller';
import { TicketsService } from './tickets.service';

/**
 * The browser's terminal: tickets (POST /api/tickets) and the WebSocket bridge (/api/ws) to the
 * shell and exec streams. Tickets live in the replicas' NATS KV when ReplicasModule's
 * SHARED_TICKET_STORE is there (NATS_URL), in this process otherwise (it is null).
 */
@Module({
  imports: [AuthenticationModule, AuthorizationModule, TunnelsModule, ReplicasModule, GatewayModule],
  controllers: [TicketsController],
  providers: [
    TicketsService,
    TerminalBridge,
    {
      provide: TicketStore,
      useFactory: (clock: Clock, shared: TicketStore | null) => shared ?? new InProcessTicketStore(() => clock.now().getTime()),
      inject: [Clock, SHARED_TICKET_STORE],
    },
  ],
})
export class TerminalModule {}
