import { Args, Context, ID, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { REGISTRY_MUTATION_PERMISSIONS as PERMISSION } from '@lunanexa/contracts';
import { RequirePermission } from '../auth';
import { callerOf } from '../common/caller';
import type { GraphQLContext } from '../common/graphql-context';
import { FakeModelVersionService } from './fake-model-version.service';
import { ModelVersion, RegisterModelVersionInput } from './model-version.types';
import { RegistryService } from './registry.service';
import {
  CreateLicenseInput,
  CreateModelInput,
  CreateModelVersionInput,
  License,
  Model,
  RegisterRuntimeInput,
  Runtime,
} from './registry.types';

/**
 * The model registry. Reads are `read`; who may call each mutation is the
 * shared table REGISTRY_MUTATION_PERMISSIONS in libs/contracts roles.ts
 * (license review and the runtime allowlist are admin decisions).
 */
@Resolver()
export class RegistryResolver {
  constructor(
    private readonly registry: RegistryService,
    private readonly fakeModelVersions: FakeModelVersionService,
  ) {}

  @RequirePermission('operate')
  @Mutation(() => ModelVersion, { description: 'Registers a model version (minimal record).' })
  registerModelVersion(
    @Args('input') input: RegisterModelVersionInput,
    @Context() ctx: GraphQLContext,
  ): Promise<ModelVersion> {
    return this.fakeModelVersions.registerModelVersion(input, callerOf(ctx));
  }

  @RequirePermission('read')
  @Query(() => [Model], { description: 'Every model, by name.' })
  models(): Promise<Model[]> {
    return this.registry.models();
  }

  @RequirePermission('read')
  @Query(() => Model, { nullable: true, description: 'One model by name or id; null when there is none.' })
  model(@Args('name') name: string): Promise<Model | null> {
    return this.registry.model(name);
  }

  @RequirePermission(PERMISSION.createModel)
  @Mutation(() => Model, {
    description: 'Creates a model; its versions are created with createModelVersion.',
  })
  createModel(@Args('input') input: CreateModelInput, @Context() ctx: GraphQLContext): Promise<Model> {
    return this.registry.createModel(input, callerOf(ctx));
  }

  @RequirePermission('read')
  @Query(() => [License], { description: 'Every license, by name, with its review state.' })
  licenses(): Promise<License[]> {
    return this.registry.licenses();
  }

  @RequirePermission('read')
  @Query(() => License, { nullable: true })
  license(@Args('name') name: string): Promise<License | null> {
    return this.registry.license(name);
  }

  @RequirePermission(PERMISSION.createLicense)
  @Mutation(() => License, { description: 'Records a license for review (PendingReview).' })
  createLicense(@Args('input') input: CreateLicenseInput, @Context() ctx: GraphQLContext): Promise<License> {
    return this.registry.createLicense(input, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.approveLicense)
  @Mutation(() => License, { description: 'Approves a license (admin); the reviewer and note are recorded.' })
  approveLicense(
    @Args('name') name: string,
    @Args('note') note: string,
    @Context() ctx: GraphQLContext,
  ): Promise<License> {
    return this.registry.decideLicense(name, 'Approved', note, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.rejectLicense)
  @Mutation(() => License, { description: 'Rejects a license (admin); versions under it do not roll out.' })
  rejectLicense(
    @Args('name') name: string,
    @Args('note') note: string,
    @Context() ctx: GraphQLContext,
  ): Promise<License> {
    return this.registry.decideLicense(name, 'Rejected', note, callerOf(ctx));
  }

  @RequirePermission('read')
  @Query(() => [Runtime], { description: 'Every runtime, by name and version, with its allowlist flag.' })
  runtimes(): Promise<Runtime[]> {
    return this.registry.runtimes();
  }

  @RequirePermission('read')
  @Query(() => Runtime, { nullable: true })
  runtime(@Args('id', { type: () => ID }) id: string): Promise<Runtime | null> {
    return this.registry.runtime(id);
  }

  @RequirePermission(PERMISSION.registerRuntime)
  @Mutation(() => Runtime, {
    description: 'Registers a runtime (validated launch spec; off the allowlist until an admin allows it).',
  })
  registerRuntime(
    @Args('input') input: RegisterRuntimeInput,
    @Context() ctx: GraphQLContext,
  ): Promise<Runtime> {
    return this.registry.registerRuntime(input, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.setRuntimeAllowed)
  @Mutation(() => Runtime, {
    description: 'Puts a runtime on the runtime allowlist or takes it off (admin).',
  })
  setRuntimeAllowed(
    @Args('id', { type: () => ID }) id: string,
    @Args('allowed') allowed: boolean,
    @Context() ctx: GraphQLContext,
  ): Promise<Runtime> {
    return this.registry.setRuntimeAllowed(id, allowed, callerOf(ctx));
  }

  @RequirePermission('read')
  @Query(() => [ModelVersion], { description: 'Model versions by ref; of one model when given.' })
  modelVersions(
    @Args('model', { type: () => String, nullable: true }) model: string | null,
  ): Promise<ModelVersion[]> {
    return this.registry.modelVersions(model ?? null);
  }

  @RequirePermission('read')
  @Query(() => ModelVersion, { nullable: true, description: 'One version by ref (name@version) or id.' })
  modelVersion(@Args('ref') ref: string): Promise<ModelVersion | null> {
    return this.registry.modelVersion(ref);
  }

  @RequirePermission(PERMISSION.createModelVersion)
  @Mutation(() => ModelVersion, {
    description: 'Registers a digest-pinned model version (state Registered).',
  })
  createModelVersion(
    @Args('input') input: CreateModelVersionInput,
    @Context() ctx: GraphQLContext,
  ): Promise<ModelVersion> {
    return this.registry.createModelVersion(input, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.verifyModelVersion)
  @Mutation(() => ModelVersion, {
    description:
      'Hashes the artifact in its store against the digest (verifyModelVersionWorkflow) and returns the version with the verification.',
  })
  verifyModelVersion(@Args('ref') ref: string, @Context() ctx: GraphQLContext): Promise<ModelVersion> {
    return this.registry.verifyModelVersion(ref, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.approveModelVersion)
  @Mutation(() => ModelVersion, {
    description: 'Evaluated → Approved: the only state rollouts accept. Needs an Approved license.',
  })
  approveModelVersion(
    @Args('ref') ref: string,
    @Args('note', { type: () => String, nullable: true }) note: string | null,
    @Context() ctx: GraphQLContext,
  ): Promise<ModelVersion> {
    return this.registry.transitionModelVersion(ref, 'approve', note ?? null, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.deprecateModelVersion)
  @Mutation(() => ModelVersion, { description: 'Approved → Deprecated: keeps serving, no new rollouts.' })
  deprecateModelVersion(
    @Args('ref') ref: string,
    @Args('reason') reason: string,
    @Context() ctx: GraphQLContext,
  ): Promise<ModelVersion> {
    return this.registry.transitionModelVersion(ref, 'deprecate', reason, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.reinstateModelVersion)
  @Mutation(() => ModelVersion, { description: 'Deprecated → Approved.' })
  reinstateModelVersion(
    @Args('ref') ref: string,
    @Args('note', { type: () => String, nullable: true }) note: string | null,
    @Context() ctx: GraphQLContext,
  ): Promise<ModelVersion> {
    return this.registry.transitionModelVersion(ref, 'reinstate', note ?? null, callerOf(ctx));
  }

  @RequirePermission(PERMISSION.retireModelVersion)
  @Mutation(() => ModelVersion, {
    description:
      'Retired (terminal): after deprecation, or a candidate that never reached Approved; withdraw: true retires an Approved or Deprecated version at once (license withdrawn, weights compromised).',
  })
  retireModelVersion(
    @Args('ref') ref: string,
    @Args('reason') reason: string,
    @Args('withdraw', { defaultValue: false }) withdraw: boolean,
    @Context() ctx: GraphQLContext,
  ): Promise<ModelVersion> {
    return this.registry.transitionModelVersion(ref, withdraw ? 'withdraw' : 'retire', reason, callerOf(ctx));
  }
}

/** A model's versions. */
@Resolver(() => Model)
export class ModelFieldsResolver {
  constructor(private readonly registry: RegistryService) {}

  @ResolveField(() => [ModelVersion], { description: 'The model’s versions, by version label.' })
  versions(@Parent() model: Model): Promise<ModelVersion[]> {
    return this.registry.versionsOf(model.id);
  }
}

/** A version's license and runtime, resolved from the registry when asked for. */
@Resolver(() => ModelVersion)
export class ModelVersionFieldsResolver {
  constructor(private readonly registry: RegistryService) {}

  @ResolveField(() => License, { description: 'The license the version is used under, with its review.' })
  license(@Parent() version: ModelVersion): Promise<License> {
    return this.registry.licenseOf(version);
  }

  @ResolveField(() => Runtime, { description: 'The runtime record in the registry (allowlist included).' })
  runtime(@Parent() version: ModelVersion): Promise<Runtime> {
    return this.registry.runtimeOf(version);
  }
}
