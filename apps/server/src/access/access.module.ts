import { Module } from '@nestjs/common';
import { DevicesModule } from '../devices/devices.module';
import { AccessService } from './access.service';
import { AccessController } from './access.controller';

@Module({ imports: [DevicesModule], providers: [AccessService], controllers: [AccessController], exports: [AccessService] })
export class AccessModule {}
