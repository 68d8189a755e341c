import { Module } from '@nestjs/common';
import { DeviceRecordsModule } from '../devices/records/device-records.module';
import { ReplicasModule } from '../replicas/replicas.module';
import { EventJournal } from './event-journal';
import { FleetEvents } from './fleet-events';

/**
 * FleetEvents, the one port through which a feature tells the event stream what happened, and this
 * replica's window (EventJournal) it writes into. The features that emit import this module; the
 * stream (EventsModule) reads the same window, and neither side imports the other's module.
 */
@Module({ imports: [DeviceRecordsModule, ReplicasModule], providers: [EventJournal, FleetEvents], exports: [FleetEvents, EventJournal] })
export class FleetEventsModule {}
