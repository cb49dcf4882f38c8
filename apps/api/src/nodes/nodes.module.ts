import { Module } from '@nestjs/common';
import { NodeFieldsResolver, NodesResolver } from './nodes.resolver';
import { NodesService } from './nodes.service';

/** The node lifecycle for operators: bootstrap tokens, approval, labels and taints, cordon, drain, rotation. */
@Module({
  providers: [NodesService, NodesResolver, NodeFieldsResolver],
})
export class NodesModule {}
