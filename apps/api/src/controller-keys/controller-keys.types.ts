import { Field, InputType, Int, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';

@ObjectType({ description: "One key of the controller's key ring (public half only)." })
export class ControllerRingKey {
  @Field({
    description: "The envelope signature key id agents know it by: 'ed25519:' + base64url(sha256(SSH blob)).",
  })
  keyId!: string;

  @Field({ description: "'SHA256:…' as ssh-keygen -lf prints it: what an operator compares on a node." })
  sshFingerprint!: string;

  @Field({ description: "'ssh-ed25519 AAAA…'." })
  publicKey!: string;

  @Field({
    description:
      'next: announced, agents are adding it, the current key still signs; current: signs; previous: still accepted until acceptUntil; retired: accepted nowhere.',
  })
  state!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The rotation that brought it in; null for the first key.',
  })
  rotationId!: string | null;

  @Field(() => String, { nullable: true, description: 'For the previous key: when the overlap ends.' })
  acceptUntil!: string | null;

  @Field(() => String, { nullable: true })
  stateChangedAt!: string | null;
}

@ObjectType({ description: "The controller's key ring and the rotation in progress, if any." })
export class ControllerKeyRingView {
  @Field({
    description:
      'steady, announced (a next key is announced) or overlap (the previous key is still accepted).',
  })
  phase!: string;

  @Field(() => [ControllerRingKey], { description: 'Every recorded key, oldest state change first.' })
  keys!: ControllerRingKey[];

  @Field(() => String, {
    nullable: true,
    description: 'The RotateControllerKey workflow of the rotation in progress.',
  })
  rotationWorkflowId!: string | null;

  @Field(() => String, { nullable: true })
  temporalUiUrl!: string | null;
}

@InputType()
export class RotateControllerKeyInput {
  @Allow()
  @Field(() => Int, {
    nullable: true,
    description: 'Seconds the next key is announced before it signs (1 s to 30 days; default 1 day).',
  })
  announceSeconds?: number | null;

  @Allow()
  @Field(() => Int, {
    nullable: true,
    description: 'Seconds the previous key stays accepted after the switch (1 s to 90 days; default 7 days).',
  })
  overlapSeconds?: number | null;

  @Allow()
  @Field({ description: 'Why (3-500 characters); audited.' })
  reason!: string;
}

@ObjectType({ description: 'A controller key rotation that was started (or resumed).' })
export class ControllerKeyRotation {
  @Field()
  rotationId!: string;

  @Field()
  workflowId!: string;

  @Field()
  temporalUiUrl!: string;

  @Field(() => ControllerRingKey, { description: 'The announced key.' })
  nextKey!: ControllerRingKey;

  @Field({ description: 'When the next key starts signing.' })
  switchAt!: string;

  @Field({ description: 'When the previous key is retired (agents then accept only the new one).' })
  retireAt!: string;
}
