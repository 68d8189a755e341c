import { Module } from '@nestjs/common';
import { StorageModule } from '../storage/storage.module';
import { AuditModule } from '../audit/audit.module';
import { AuthorizationModule } from '../authorization/authorization.module';
import { DevicesModule } from '../devices/devices.module';
import { TunnelsModule } from '../replicas/tunnels.module';
import { ReplicasModule } from '../replicas/replicas.module';
import { ServerMetricsModule } from '../common/server-metrics.module';
import { FleetEventsModule } from '../events/fleet-events.module';
import { DeploymentChanges } from './deployment-changes';
import { DeploymentChannels } from './deployment-channels.service';
import { DeploymentJobsController } from './deployment-jobs.controller';
import { DeploymentReports } from './deployment-reports';
import { DeploymentStatusService } from './deployment-status.service';
import { catalogController } from '../authorization/catalog-controller';
import { DeploymentsService } from './deployments.service';
import { DeviceRemovalListener } from './device-removal.listener';
import { ReportStore } from './report-store';
import { ReportsRepository } from './reports.repository';
import { DeploymentsRepository } from './deployments.repository';
import { JobLogsService } from './job-logs.service';
import { ReportFreshness } from './report-freshness';

/** Deployments: the REST operations, and the deployment channel to each connected runtime. */
@Module({
  imports: [StorageModule, AuditModule, AuthorizationModule, DevicesModule, TunnelsModule, ReplicasModule, ServerMetricsModule, FleetEventsModule],
  providers: [DeploymentsService, DeviceRemovalListener, ReportStore, ReportsRepository, DeploymentsRepository, DeploymentStatusService, DeploymentChanges, DeploymentReports, DeploymentChannels, JobLogsService, ReportFreshness],
  controllers: [catalogController(DeploymentsService, 'deployments'), catalogController(DeploymentStatusService, 'deployments'), DeploymentJobsController],
})
export class DeploymentsModule {}
