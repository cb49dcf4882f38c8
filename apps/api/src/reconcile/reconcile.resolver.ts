import { Args, Context, Mutation, Query, Resolver } from '@nestjs/graphql';
import { RequirePermission } from '../auth';
import type { GraphQLContext } from '../common/graphql-context';
import { ReconcileService } from './reconcile.service';
import { ControlPlaneDigestView, ReconcileInput, ReconcileRun } from './reconcile.types';

/** Reconcile: desired state against what runs; the dry run (read) and a repairing pass (operate). */
@Resolver()
export class ReconcileResolver {
  constructor(private readonly reconcile: ReconcileService) {}

  @RequirePermission('read')
  @Query(() => ReconcileRun, {
    description:
      'Dry run of Reconcile: every difference between the desired state and the running workflows and agents, with the repair a pass would take. Changes nothing.',
  })
  reconcilePlan(@Context() ctx: GraphQLContext): Promise<ReconcileRun> {
    return this.reconcile.reconcile({ dryRun: true }, { actor: ctx.actor, ids: ctx.ids });
  }

  @RequirePermission('read')
  @Query(() => ControlPlaneDigestView, {
    description:
      'Hashes of the registry, the desired state and the audit chain, as backup.sh records them beside each dump: compare a running controller with a backup (lunanexa digest --compare). Changes nothing.',
  })
  controlPlaneDigest(): Promise<ControlPlaneDigestView> {
    return this.reconcile.digest();
  }

  @RequirePermission('operate')
  @Mutation(() => ReconcileRun, {
    description:
      'Runs one Reconcile pass (a workflow): resumes missing deployment workflows, moves generations nodes are ahead of, re-pushes unreported replicas, with a fleet.reconcile receipt; with dryRun, only lists the drift.',
  })
  reconcileFleet(
    @Args('input') input: ReconcileInput,
    @Context() ctx: GraphQLContext,
  ): Promise<ReconcileRun> {
    return this.reconcile.reconcile(input, { actor: ctx.actor, ids: ctx.ids });
  }
}
