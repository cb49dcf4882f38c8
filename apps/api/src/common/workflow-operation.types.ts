import { Field, ObjectType } from '@nestjs/graphql';

/**
 * What every mutation that starts a workflow answers besides its own record:
 * the workflow to follow, its Temporal UI link and the correlation id its
 * receipts carry. Abstract: each operation type inherits the fields, the
 * schema has no type of this name.
 */
@ObjectType({ isAbstract: true })
export abstract class WorkflowOperation {
  @Field()
  workflowId!: string;

  @Field()
  temporalUiUrl!: string;

  @Field()
  correlationId!: string;
}
