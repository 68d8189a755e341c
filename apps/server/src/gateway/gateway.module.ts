import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { ClientStreamAcceptor } from '../relay/tunnel-ports';
import { TunnelsModule } from '../replicas/tunnels.module';
import { AuthenticationModule } from '../authentication/authentication.module';
import { DockerService } from '../docker/docker.service';
import { ExecStreamService } from '../exec/exec-stream.service';
import { ForwardAuditThrottle } from '../forwarding/forward-audit.throttle';
import { ForwardService } from '../forwarding/forward.service';
import { ShellService } from '../shell/shell.service';
import { ClientStreamGateway } from './client-stream.gateway';
import { ClientStreamRouter } from './client-stream.router';

/** Client streams on UNIFIED_PORT (ALPN h2) and the operations they carry (forwards, shells, container engine, exec); the browser's terminal bridge opens shells and execs the same way. */
@Module({
  imports: [AuthenticationModule, AuditModule, AuthorizationModule, TunnelsModule],
  providers: [ClientStreamGateway, { provide: ClientStreamAcceptor, useExisting: ClientStreamGateway }, ClientStreamRouter, ForwardService, ForwardAuditThrottle, ShellService, DockerService, ExecStreamService],
  exports: [ClientStreamGateway, ClientStreamAcceptor, ShellService, ExecStreamService],
})
export class GatewayModule {}
