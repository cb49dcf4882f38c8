import { Module } from '@nestjs/common';
import { NodesResolver } from './nodes.resolver';
import { NodesService } from './nodes.service';

/** The node lifecycle for operators: bootstrap tokens, approval, labels and taints, cordon, drain, rotation. */
@Module({
  providers: [NodesService, NodesResolver],
})
export class NodesModule {}
