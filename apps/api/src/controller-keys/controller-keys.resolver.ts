import { Args, Context, Mutation, Query, Resolver } from '@nestjs/graphql';
import { RequirePermission } from '../auth';
import { callerOf } from '../common/caller';
import type { GraphQLContext } from '../common/graphql-context';
import { ControllerKeysService } from './controller-keys.service';
import {
  ControllerKeyRingView,
  ControllerKeyRotation,
  RotateControllerKeyInput,
} from './controller-keys.types';

/** The controller key ring: reading is `read`, rotating is `administer`. */
@Resolver()
export class ControllerKeysResolver {
  constructor(private readonly service: ControllerKeysService) {}

  @RequirePermission('read')
  @Query(() => ControllerKeyRingView, {
    description:
      "The controller's signing keys (public halves) with their states, and the rotation in progress.",
  })
  controllerKeyRing(): Promise<ControllerKeyRingView> {
    return this.service.ringView();
  }

  @RequirePermission('administer')
  @Mutation(() => ControllerKeyRotation, {
    description:
      'RotateControllerKey: generates a new controller key, announces it to every agent in signed heartbeat answers and assignments, switches to it after announceSeconds and retires the old key after overlapSeconds more. No node is re-enrolled; one that missed the whole rotation turns ControllerKeyTrusted=False with the command that recovers it. CONFLICT while a rotation is in progress; VALIDATION_FAILED for windows out of range. Audited.',
  })
  rotateControllerKey(
    @Args('input') input: RotateControllerKeyInput,
    @Context() ctx: GraphQLContext,
  ): Promise<ControllerKeyRotation> {
    return this.service.rotate(input, callerOf(ctx));
  }
}
