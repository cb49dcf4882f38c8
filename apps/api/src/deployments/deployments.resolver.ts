import { Args, Context, Mutation, Query, Resolver } from '@nestjs/graphql';
import { RequirePermission } from '../auth';
import { callerOf } from '../common/caller';
import type { GraphQLContext } from '../common/graphql-context';
import { DeploymentsService } from './deployments.service';
import {
  CreateDeploymentInput,
  Deployment,
  DeploymentOperation,
  PlacementPlanInput,
  PlacementPlanView,
} from './deployments.types';

/** Deployments and the scheduler's dry run: reads are read, changes are operate (libs/contracts roles.ts). */
@Resolver()
export class DeploymentsResolver {
  constructor(private readonly deploymentsService: DeploymentsService) {}

  @RequirePermission('read')
  @Query(() => [Deployment])
  deployments(): Promise<Deployment[]> {
    return this.deploymentsService.deployments();
  }

  @RequirePermission('read')
  @Query(() => Deployment, { nullable: true })
  deployment(@Args('deployment') deployment: string): Promise<Deployment | null> {
    return this.deploymentsService.deployment(deployment);
  }

  @RequirePermission('read')
  @Query(() => PlacementPlanView, {
    description:
      'Dry run of the scheduler: where replicas of a model version would go now and why every node was or was not chosen. Changes nothing.',
  })
  placementPlan(@Args('input') input: PlacementPlanInput): Promise<PlacementPlanView> {
    return this.deploymentsService.placementPlan(input);
  }

  @RequirePermission('operate')
  @Mutation(() => DeploymentOperation, {
    description:
      'Starts the deployment workflow (place, push signed assignments, wait for Ready, keep leases).',
  })
  createDeployment(
    @Args('input') input: CreateDeploymentInput,
    @Context() ctx: GraphQLContext,
  ): Promise<DeploymentOperation> {
    return this.deploymentsService.createDeployment(input, callerOf(ctx));
  }

  @RequirePermission('operate')
  @Mutation(() => Deployment, {
    description:
      'Sets how the gateway picks a replica of this deployment per request (round-robin, least-loaded, prefix-affinity); gateways apply it within about a second. Audited; an unknown policy is VALIDATION_FAILED, an unknown deployment NOT_FOUND.',
  })
  setDeploymentRoutingPolicy(
    @Args('deployment', { description: 'Deployment id or name.' }) deployment: string,
    @Args('routingPolicy') routingPolicy: string,
    @Context() ctx: GraphQLContext,
  ): Promise<Deployment> {
    return this.deploymentsService.setRoutingPolicy(deployment, routingPolicy, callerOf(ctx));
  }

  @RequirePermission('operate')
  @Mutation(() => DeploymentOperation, {
    description: 'Stops every replica and waits until the agents report them stopped.',
  })
  stopDeployment(
    @Args('deployment') deployment: string,
    @Args('idempotencyKey', {
      type: () => String,
      nullable: true,
      description:
        'The same key again returns the first call’s answer; default: derived from the deployment.',
    })
    idempotencyKey: string | null,
    @Context() ctx: GraphQLContext,
  ): Promise<DeploymentOperation> {
    return this.deploymentsService.stopDeployment(deployment, callerOf(ctx), idempotencyKey ?? null);
  }
}
