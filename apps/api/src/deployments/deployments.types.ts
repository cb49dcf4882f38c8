import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';
import { WorkflowOperation } from '../common/workflow-operation.types';

/** GraphQL shapes of deployments and placement; state fields hold the names in libs/contracts lifecycle.ts. */

@ObjectType({
  description: 'One replica of a deployment on one node: desired (generation, intent, lease) and observed.',
})
export class Assignment {
  @Field(() => ID)
  id!: string;

  @Field()
  deploymentId!: string;

  @Field()
  nodeId!: string;

  @Field()
  nodeName!: string;

  @Field(() => Int)
  generation!: number;

  @Field({ description: 'Run or Stop.' })
  intent!: string;

  @Field()
  leaseExpiresAt!: Date;

  @Field(() => Int, { nullable: true, description: 'Newest generation the agent acknowledged (persisted).' })
  ackedGeneration!: number | null;

  @Field(() => String, { nullable: true, description: 'Replica state the agent last reported.' })
  observedState!: string | null;

  @Field(() => Int, { nullable: true })
  observedGeneration!: number | null;

  @Field(() => Int, { nullable: true })
  endpointPort!: number | null;

  @Field(() => Int, { nullable: true, description: 'In-flight requests the runtime reported.' })
  inFlight!: number | null;

  @Field(() => String, { nullable: true })
  message!: string | null;

  @Field(() => Date, { nullable: true })
  observedAt!: Date | null;
}

@ObjectType({ description: 'A node the scheduler put a replica on, and why.' })
export class PlacementChoice {
  @Field()
  node!: string;

  @Field()
  reason!: string;
}

@ObjectType({ description: 'A node the scheduler passed over, with every reason it was not eligible.' })
export class PlacementRejection {
  @Field()
  node!: string;

  @Field(() => [String])
  reasons!: string[];
}

@ObjectType({
  description:
    "The scheduler's last decision for a deployment: eligibility (Active, not cordoned, no NoSchedule/NoExecute taint, live lease, node selector) and hardware fit of one replica on each node.",
})
export class DeploymentPlacement {
  @Field()
  decidedAt!: string;

  @Field(() => [PlacementChoice])
  chosen!: PlacementChoice[];

  @Field(() => [PlacementRejection])
  rejected!: PlacementRejection[];

  @Field(() => Int, { description: 'Replicas no eligible node was left for.' })
  unplaced!: number;
}

@ObjectType()
export class Deployment {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field()
  modelRef!: string;

  @Field({
    description:
      'Serving (passed the full deploy gate, as a rollout canary does) or Candidate (deployed to evaluate a version before approval; no alias routes to it).',
  })
  purpose!: string;

  @Field({ description: 'How the scheduler ranks nodes for its replicas: Spread or Binpack.' })
  placementStrategy!: string;

  @Field({
    description:
      'How the gateway picks a replica per request: round-robin, least-loaded (default: fewest running and queued, nearly full KV caches avoided) or prefix-affinity (hash of the system prompt, else the first user message, on a consistent-hash ring; no replica above 1.25× the mean in flight). Set with setDeploymentRoutingPolicy.',
  })
  routingPolicy!: string;

  @Field()
  state!: string;

  @Field(() => String, { nullable: true })
  stateReason!: string | null;

  @Field(() => Int)
  generation!: number;

  @Field(() => Int)
  observedGeneration!: number;

  @Field(() => Int)
  desiredReplicas!: number;

  @Field(() => Int)
  readyReplicas!: number;

  @Field(() => [Assignment])
  assignments!: Assignment[];

  @Field(() => DeploymentPlacement, {
    nullable: true,
    description:
      'Why the replicas run where they do, or why some run nowhere; null before the first placement.',
  })
  placement!: DeploymentPlacement | null;

  @Field()
  workflowId!: string;

  @Field()
  temporalUiUrl!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;
}

@InputType()
export class CreateDeploymentInput {
  @Allow()
  @Field({ description: 'Deployment name (a DNS label), unique.' })
  name!: string;

  @Allow()
  @Field({ description: 'Model version ref, name@version.' })
  model!: string;

  @Allow()
  @Field(() => String, {
    nullable: true,
    description: 'Node id or name to place on; otherwise the scheduler chooses.',
  })
  node?: string | null;

  @Allow()
  @Field(() => Int, { defaultValue: 1 })
  replicas!: number;

  @Allow()
  @Field(() => String, {
    defaultValue: 'Serving',
    description:
      'Serving: to serve traffic; the version passes the same deploy gate as a rollout (license, runtime allowlist, hardware, evaluation passed, Approved, digest). Candidate: to evaluate a version before approval; the same gate without evaluation and approval (the version must be verified, not Deprecated or Retired). Asked for explicitly.',
  })
  purpose!: string;

  @Allow()
  @Field(() => String, {
    defaultValue: 'Spread',
    description:
      'How the scheduler ranks eligible nodes: Spread (least memory claimed, fewest replicas and least runtime load after placing first) or Binpack (most memory claimed that still fits and most replicas first); ties by name.',
  })
  placementStrategy!: string;

  @Allow()
  @Field(() => String, {
    nullable: true,
    description: 'Repeating a request with the same key returns the same deployment.',
  })
  idempotencyKey?: string | null;
}

@InputType({ description: 'What to place, for a dry run of the scheduler.' })
export class PlacementPlanInput {
  @Allow()
  @Field({ description: 'Model version ref, name@version.' })
  model!: string;

  @Allow()
  @Field(() => Int, { defaultValue: 1 })
  replicas!: number;

  @Allow()
  @Field(() => String, { defaultValue: 'Spread', description: 'Spread or Binpack.' })
  placementStrategy!: string;

  @Allow()
  @Field(() => String, { nullable: true, description: 'Node id or name to place on.' })
  node?: string | null;

  @Allow()
  @Field(() => String, {
    nullable: true,
    description: 'An existing deployment: the plan adds to it (its nodes already run a replica).',
  })
  deployment?: string | null;
}

@ObjectType({
  description:
    'What the scheduler would do now, and why, for every node. A dry run: nothing is placed, written or audited.',
})
export class PlacementPlanView {
  @Field()
  strategy!: string;

  @Field(() => Int)
  replicas!: number;

  @Field(() => [PlacementChoice])
  chosen!: PlacementChoice[];

  @Field(() => [PlacementRejection])
  rejected!: PlacementRejection[];

  @Field(() => Int, { description: 'Replicas no eligible node was left for.' })
  unplaced!: number;
}

@ObjectType()
export class DeploymentOperation extends WorkflowOperation {
  @Field(() => Deployment, { nullable: true, description: 'Null until the workflow has written the record.' })
  deployment!: Deployment | null;

  @Field()
  deploymentId!: string;
}
