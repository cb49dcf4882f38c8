import { Field, InputType, Int, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';
import { WorkflowOperation } from '../common/workflow-operation.types';

@InputType()
export class ReconcileInput {
  @Allow()
  @Field({ description: 'Only find the drift: no repair, no write, no receipt.' })
  dryRun!: boolean;

  @Allow()
  @Field(() => String, { nullable: true, description: 'Repeating a key returns the same reconcile pass.' })
  idempotencyKey?: string | null;
}

@ObjectType({ description: 'One difference between the desired state and what runs.' })
export class ReconcileDriftView {
  @Field({
    description:
      'DeploymentWorkflowMissing, GenerationBehindNode, ReplicaNotReported or UnknownReplicaOnNode.',
  })
  kind!: string;

  @Field({ description: 'The deployment id (DeploymentWorkflowMissing) or the replica assignment id.' })
  target!: string;

  @Field(() => String, { nullable: true })
  deploymentId!: string | null;

  @Field(() => String, { nullable: true })
  nodeId!: string | null;

  @Field({ description: 'What the desired state says.' })
  desired!: string;

  @Field({ description: 'What was observed instead.' })
  observed!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The repair taken for it; null when none is the controller’s to take (see note).',
  })
  repair!: string | null;

  @Field()
  note!: string;
}

@ObjectType({ description: 'One repair of a reconcile pass and what came of it.' })
export class ReconcileRepairView {
  @Field({ description: 'AdvanceGeneration, ResumeDeploymentWorkflow or PushAssignments.' })
  kind!: string;

  @Field({ description: 'The deployment id, or the assignment id for AdvanceGeneration.' })
  target!: string;

  @Field()
  deploymentId!: string;

  @Field(() => Int, { nullable: true })
  fromGeneration!: number | null;

  @Field(() => Int, { nullable: true })
  toGeneration!: number | null;

  @Field({ description: 'A Stopping deployment resumed with its stop.' })
  stop!: boolean;

  @Field()
  reason!: string;

  @Field({ description: '`applied`, `already done`, why not, or `not applied: dry run`.' })
  outcome!: string;
}

@ObjectType({
  description: 'A reconcile pass: the drift it found and the repairs it took (none in a dry run).',
})
export class ReconcileRun extends WorkflowOperation {
  @Field()
  dryRun!: boolean;

  @Field({ description: 'No drift was found.' })
  inSync!: boolean;

  @Field(() => [ReconcileDriftView])
  drift!: ReconcileDriftView[];

  @Field(() => [ReconcileRepairView])
  repairs!: ReconcileRepairView[];

  @Field(() => String, { nullable: true, description: 'The fleet.reconcile receipt; null in a dry run.' })
  receiptHash!: string | null;

  @Field(() => Int, { nullable: true })
  receiptSeq!: number | null;
}

@ObjectType({ description: 'The audit chain as the digest reads it.' })
export class ControlPlaneAuditDigest {
  @Field(() => Int)
  events!: number;

  @Field(() => String, {
    nullable: true,
    description:
      'The hash of the last event, which commits to every event before it; null for an empty chain.',
  })
  headHash!: string | null;

  @Field({ description: 'Every link recomputed from its event.' })
  valid!: boolean;
}

@ObjectType({
  description:
    'Hashes of the control plane’s durable state, computed as infra/backup/backup.sh records them beside each dump (<dump>.digest), so a running controller can be compared with a backup.',
})
export class ControlPlaneDigestView {
  @Field({
    description:
      'sha256 over models, licenses, runtimes, model versions, aliases and their revisions, trusted signing keys.',
  })
  registry!: string;

  @Field({
    description:
      'sha256 over deployments, their replicas’ node, generation and intent, and nodes’ lifecycle, cordon, labels and taints (not leases, observations or placement records).',
  })
  desiredState!: string;

  @Field(() => ControlPlaneAuditDigest)
  auditChain!: ControlPlaneAuditDigest;
}
