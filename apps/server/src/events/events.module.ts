import { Global, Module } from '@nestjs/common';
import { AuthenticationModule } from '../authentication/authentication.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { DeviceRecordsModule } from '../devices/records/device-records.module';
import { OrgRecordsModule } from '../orgs/records/org-records.module';
import { TunnelStateModule } from '../relay/tunnel-state.module';
import { EventJournal } from './event-journal';
import { EventStreamController } from './event-stream.controller';
import { EventStreams } from './event-streams.service';
import { EventVisibility } from './event-visibility';
import { FleetEvents } from './fleet-events';
import { TunnelPresenceEvents } from './tunnel-presence-events';

/**
 * The event stream (GET /events) and its one emit port, FleetEvents, which every feature may take
 * (global: the features emit, this module reads them through AccessPolicy, and neither imports the other's module).
 */
@Global()
@Module({
  imports: [AuthenticationModule, AuthorizationModule, DeviceRecordsModule, OrgRecordsModule, TunnelStateModule],
  providers: [EventJournal, FleetEvents, EventVisibility, EventStreams, TunnelPresenceEvents],
  controllers: [EventStreamController],
  exports: [FleetEvents, EventStreams],
})
export class EventsModule {}
