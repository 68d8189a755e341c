import { Module } from '@nestjs/common';
import { AuthenticationModule } from '../authentication/authentication.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { DeviceRecordsModule } from '../devices/records/device-records.module';
import { OrgRecordsModule } from '../orgs/records/org-records.module';
import { TunnelsModule } from '../replicas/tunnels.module';
import { EventStreamController } from './event-stream.controller';
import { EventStreams } from './event-streams.service';
import { EventVisibility } from './event-visibility';
import { FleetEventsModule } from './fleet-events.module';
import { TunnelPresenceEvents } from './tunnel-presence-events';

/** The event stream (GET /events): the window FleetEventsModule fills, shown to each caller through AccessPolicy. */
@Module({
  imports: [AuthenticationModule, AuthorizationModule, DeviceRecordsModule, OrgRecordsModule, TunnelsModule, FleetEventsModule],
  providers: [EventVisibility, EventStreams, TunnelPresenceEvents],
  controllers: [EventStreamController],
  exports: [EventStreams],
})
export class EventsModule {}
