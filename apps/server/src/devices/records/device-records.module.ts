import { Module } from '@nestjs/common';
import { StorageModule } from '../../storage/storage.module';
import { DeviceRecords } from './device-records';
import { DevicesRepository } from './devices.repository';

/**
 * The devices feature's records, below every module that decides on devices (AccessPolicy,
 * registrations, sharing, organizations): they use `DeviceRecords`; `DevicesRepository` is for
 * devices/ alone (the lint's no-foreign-repository rule).
 */
@Module({ imports: [StorageModule], providers: [DevicesRepository, DeviceRecords], exports: [DevicesRepository, DeviceRecords] })
export class DeviceRecordsModule {}
