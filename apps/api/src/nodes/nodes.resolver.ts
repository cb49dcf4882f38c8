import { Args, Context, ID, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { RequirePermission } from '../auth';
import { callerOf } from '../common/caller';
import type { GraphQLContext } from '../common/graphql-context';
import { NodesService } from './nodes.service';
import {
  BootstrapToken,
  ControllerIdentity,
  CreateBootstrapTokenInput,
  CreatedBootstrapToken,
  DrainResult,
  FleetNode,
  GpuSeries,
  LabelInput,
  NodeOperation,
  TaintInput,
} from './nodes.types';

/**
 * Nodes and bootstrap tokens. Node arguments accept a node id or its name.
 * Who may call what is the shared table in libs/contracts roles.ts: bootstrap
 * tokens are credential administration (admin); the rest of the fleet is
 * operate; reads are read.
 */
@Resolver()
export class NodesResolver {
  constructor(private readonly fleet: NodesService) {}

  @RequirePermission('read')
  @Query(() => ControllerIdentity, {
    description: 'What an agent needs to pin the controller: key id and fingerprint.',
  })
  controllerIdentity(): ControllerIdentity {
    return this.fleet.controllerIdentity();
  }

  @RequirePermission('read')
  @Query(() => [FleetNode], { description: 'Every enrolled node, by name.' })
  nodes(): Promise<FleetNode[]> {
    return this.fleet.nodes();
  }

  @RequirePermission('read')
  @Query(() => FleetNode, { nullable: true, description: 'One node by id or name; null when there is none.' })
  node(@Args('node') node: string): Promise<FleetNode | null> {
    return this.fleet.node(node);
  }

  @RequirePermission('administer')
  @Query(() => [BootstrapToken], { description: 'Bootstrap tokens, newest first (never the secret).' })
  bootstrapTokens(): Promise<BootstrapToken[]> {
    return this.fleet.bootstrapTokens();
  }

  @RequirePermission('administer')
  @Mutation(() => CreatedBootstrapToken, {
    description: 'A single-use enrollment token (default 15 minutes). The token is in this answer only.',
  })
  createBootstrapToken(
    @Args('input') input: CreateBootstrapTokenInput,
    @Context() ctx: GraphQLContext,
  ): Promise<CreatedBootstrapToken> {
    return this.fleet.createBootstrapToken(input, callerOf(ctx));
  }

  @RequirePermission('administer')
  @Mutation(() => BootstrapToken, { description: 'Revokes an unused bootstrap token.' })
  revokeBootstrapToken(
    @Args('id', { type: () => ID }) id: string,
    @Context() ctx: GraphQLContext,
  ): Promise<BootstrapToken> {
    return this.fleet.revokeBootstrapToken(id, callerOf(ctx));
  }

  @RequirePermission('operate')
  @Mutation(() => NodeOperation, {
    description:
      'Approves a Pending node and waits for EnrollNode to finish (credential issued, SSH checked, Active).',
  })
  approveNode(
    @Args('node') node: string,
    @Args('idempotencyKey', {
      type: () => String,
      nullable: true,
      description: 'The same key again returns the first call’s answer; default: derived from the node.',
    })
    idempotencyKey: string | null,
    @Context() ctx: GraphQLContext,
  ): Promise<NodeOperation> {
    return this.fleet.approveNode(node, callerOf(ctx), idempotencyKey ?? null);
  }

  @RequirePermission('operate')
  @Mutation(() => NodeOperation, {
    description: 'Rejects a Pending node; it must enroll again with a new token.',
  })
  rejectNode(
    @Args('node') node: string,
    @Args('reason') reason: string,
    @Args('idempotencyKey', {
      type: () => String,
      nullable: true,
      description: 'The same key again returns the first call’s answer; default: derived from the node.',
    })
    idempotencyKey: string | null,
    @Context() ctx: GraphQLContext,
  ): Promise<NodeOperation> {
    return this.fleet.rejectNode(node, reason, callerOf(ctx), idempotencyKey ?? null);
  }

  @RequirePermission('operate')
  @Mutation(() => FleetNode, { description: 'Replaces the node labels.' })
  setNodeLabels(
    @Args('node') node: string,
    @Args('labels', { type: () => [LabelInput] }) labels: LabelInput[],
    @Context() ctx: GraphQLContext,
  ): Promise<FleetNode> {
    return this.fleet.setLabels(node, labels, callerOf(ctx));
  }

  @RequirePermission('operate')
  @Mutation(() => FleetNode, { description: 'Replaces the node taints.' })
  setNodeTaints(
    @Args('node') node: string,
    @Args('taints', { type: () => [TaintInput] }) taints: TaintInput[],
    @Context() ctx: GraphQLContext,
  ): Promise<FleetNode> {
    return this.fleet.setTaints(node, taints, callerOf(ctx));
  }

  @RequirePermission('operate')
  @Mutation(() => FleetNode, { description: 'No new placements on the node; running replicas keep serving.' })
  cordonNode(@Args('node') node: string, @Context() ctx: GraphQLContext): Promise<FleetNode> {
    return this.fleet.setCordoned(node, true, callerOf(ctx));
  }

  @RequirePermission('operate')
  @Mutation(() => FleetNode, {
    description: 'Placements allowed again; on a Drained node this also returns it to service (Active).',
  })
  uncordonNode(@Args('node') node: string, @Context() ctx: GraphQLContext): Promise<FleetNode> {
    return this.fleet.setCordoned(node, false, callerOf(ctx));
  }

  @RequirePermission('operate')
  @Mutation(() => DrainResult, {
    description:
      'DrainNode: cordon, stop new traffic, wait for in-flight requests (bounded), stop the replicas, Drained. ' +
      'Refused with DRAIN_WOULD_STRAND_REPLICAS (nothing changed) when a replica on the node could not be placed ' +
      'on another node, unless force is true with a reason (recorded on the drain receipt).',
  })
  drainNode(
    @Args('node') node: string,
    @Args('timeoutSeconds', { type: () => Int, defaultValue: 60 }) timeoutSeconds: number,
    @Args('idempotencyKey', { type: () => String, nullable: true }) idempotencyKey: string | null,
    @Context() ctx: GraphQLContext,
    @Args('force', {
      type: () => Boolean,
      defaultValue: false,
      description: 'Drain even if replicas have nowhere to go (they stop and stay unplaced); needs reason.',
    })
    force: boolean,
    @Args('reason', {
      type: () => String,
      nullable: true,
      description: 'Why a forced drain may strand replicas; audited on the drain receipt.',
    })
    reason: string | null,
  ): Promise<DrainResult> {
    return this.fleet.drainNode(node, timeoutSeconds, idempotencyKey, callerOf(ctx), {
      force,
      reason: reason ?? null,
    });
  }

  @RequirePermission('operate')
  @Mutation(() => NodeOperation, {
    description:
      'RotateNodeCredential: the agent switches to a new key with no gap, then a new credential is issued.',
  })
  rotateNodeCredential(
    @Args('node') node: string,
    @Args('idempotencyKey', { type: () => String, nullable: true }) idempotencyKey: string | null,
    @Context() ctx: GraphQLContext,
  ): Promise<NodeOperation> {
    return this.fleet.rotateNodeCredential(node, idempotencyKey, callerOf(ctx));
  }
}

/** A node's GPU history, read only when a query asks for it (the Nodes list does not). */
@Resolver(() => FleetNode)
export class NodeFieldsResolver {
  constructor(private readonly fleet: NodesService) {}

  @ResolveField(() => [GpuSeries], {
    description:
      "Each GPU's samples of the last `minutes` (default 60, at most 1440: samples are kept 24 h), one per " +
      '15 s at most. VALIDATION_FAILED for a window outside that range.',
  })
  gpuSeries(
    @Parent() node: FleetNode,
    @Args('minutes', { type: () => Int, nullable: true }) minutes?: number | null,
  ): Promise<GpuSeries[]> {
    return this.fleet.gpuSeries(node, minutes);
  }
}
