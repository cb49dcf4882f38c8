import { Field, Float, ObjectType } from '@nestjs/graphql';

@ObjectType({ description: 'Result of checking one dependency (PostgreSQL, Temporal).' })
export class DependencyCheck {
  @Field()
  name!: string;

  @Field({ description: 'ok or failing' })
  status!: string;

  @Field(() => String, { nullable: true })
  detail!: string | null;

  @Field(() => Float, { nullable: true, description: 'Round-trip time of the check.' })
  latencyMs!: number | null;
}

@ObjectType({ description: 'API health: version, build commit and dependency checks.' })
export class Health {
  @Field({ description: 'ok when every dependency check passes, degraded otherwise.' })
  status!: string;

  @Field()
  version!: string;

  @Field()
  commit!: string;

  @Field(() => [DependencyCheck])
  checks!: DependencyCheck[];
}
