import { Field, Int, ObjectType } from '@nestjs/graphql';

@ObjectType({
  description:
    'A committed change, as a live notice: an audit event (kind "audit") or a node heartbeat (kind "node"). Re-read what it names; `dropped` > 0 means notices were missed.',
})
export class LiveEvent {
  @Field({ description: 'audit or node' })
  kind!: string;

  @Field(() => Int, { nullable: true, description: 'Audit sequence number (kind audit).' })
  seq!: number | null;

  @Field(() => String, { nullable: true })
  action!: string | null;

  @Field(() => String, { nullable: true })
  actor!: string | null;

  @Field(() => String, { nullable: true })
  decision!: string | null;

  @Field(() => String, { nullable: true })
  correlationId!: string | null;

  @Field(() => String, { nullable: true })
  workflowId!: string | null;

  @Field(() => String, { nullable: true, description: 'Node or deployment id the event is about.' })
  subject!: string | null;

  @Field(() => String, { nullable: true, description: 'The node (kind node).' })
  nodeId!: string | null;

  @Field()
  occurredAt!: string;

  @Field(() => Int)
  dropped!: number;
}
