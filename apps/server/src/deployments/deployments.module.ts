import { Module } from '@nestjs/common';
import { DeploymentChanges } from './deployment-changes';
import { DeploymentChannels } from './deployment-channels.service';
import { DeploymentJobsController } from './deployment-jobs.controller';
import { DeploymentReports } from './deployment-reports';
import { DeploymentStatusService } from './deployment-status.service';
import { DeploymentsController } from './deployments.controller';
import { DeploymentsService } from './deployments.service';
import { JobLogsService } from './job-logs.service';

/** Deployments: the REST operations, and the deployment channel to each connected runtime. */
@Module({
  providers: [DeploymentsService, DeploymentStatusService, DeploymentChanges, DeploymentReports, DeploymentChannels, JobLogsService],
  controllers: [DeploymentsController, DeploymentJobsController],
})
export class DeploymentsModule {}
