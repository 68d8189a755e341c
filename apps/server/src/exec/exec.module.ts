import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { TunnelsModule } from '../replicas/tunnels.module';
import { ExecController } from './exec.controller';
import { ExecService } from './exec.service';

/** device_exec over REST (the streaming variant rides the client-stream gateway). */
@Module({
  imports: [AuditModule, AuthorizationModule, TunnelsModule],
  providers: [ExecService],
  controllers: [ExecController],
})
export class ExecModule {}
