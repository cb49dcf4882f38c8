import { Field, ObjectType } from '@nestjs/graphql';

export const SEARCH_HIT_KINDS = [
  'audit',
  'request',
  'correlation',
  'workflow',
  'node',
  'deployment',
  'model',
] as const;

@ObjectType({ description: 'Something the search box found, and where the console shows it.' })
export class SearchHit {
  @Field(() => String, { description: SEARCH_HIT_KINDS.join(', ') })
  kind!: (typeof SEARCH_HIT_KINDS)[number];

  @Field()
  title!: string;

  @Field(() => String, { nullable: true })
  detail!: string | null;

  @Field({ description: 'Console route (path and query) that shows it.' })
  route!: string;

  @Field(() => String, { nullable: true, description: 'For workflows: the Temporal UI link.' })
  temporalUiUrl!: string | null;
}

@ObjectType({ description: 'A workflow that ended badly recently: an Overview alert.' })
export class WorkflowAlert {
  @Field()
  workflowId!: string;

  @Field()
  runId!: string;

  @Field()
  workflowType!: string;

  @Field({ description: 'FAILED, TIMED_OUT or TERMINATED.' })
  status!: string;

  @Field(() => Date, { nullable: true })
  closedAt!: Date | null;

  @Field()
  temporalUiUrl!: string;
}
