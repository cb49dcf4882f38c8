import type { Assignment, RuntimeHealthCheck, RuntimeKind } from '@lunanexa/contracts';
import type { RuntimeAdapter, RuntimeSpec } from './adapter';
import { FakeRuntimeAdapter, type FakeRuntimeAdapterOptions } from './fake';
import { OpenAiCompatibleRuntimeAdapter, type OpenAiCompatibleAdapterOptions } from './openai-compatible';

export * from './adapter';
export * from './container-engine';
export * from './errors';
export * from './fake';
export * from './health';
export * from './host';
export * from './launch';
export * from './multi-node';
export * from './openai-compatible';
export * from './process-group';
export * from './supervised-runtime';

/** One adapter per runtime kind; a Record, so a new kind does not compile until it has an adapter. */
export function createRuntimeAdapters(
  options: {
    readonly fake?: FakeRuntimeAdapterOptions;
    readonly openAiCompatible?: OpenAiCompatibleAdapterOptions;
  } = {},
): Readonly<Record<RuntimeKind, RuntimeAdapter>> {
  return {
    fake: new FakeRuntimeAdapter(options.fake),
    'openai-compatible': new OpenAiCompatibleRuntimeAdapter(options.openAiCompatible),
  };
}

/**
 * What an adapter needs from an accepted assignment. The served model name is
 * the pinned version, which is what the gateway's route table sends as `model`.
 */
export function runtimeSpecFromAssignment(
  assignment: Assignment,
  local: { readonly modelPath: string; readonly health?: RuntimeHealthCheck },
): RuntimeSpec {
  return {
    assignmentId: assignment.id,
    runtime: assignment.runtime,
    ...(local.health !== undefined ? { health: local.health } : {}),
    modelPath: local.modelPath,
    servedModelName: assignment.modelVersion,
    gpuUuids: assignment.gpuUuids,
    env: assignment.env,
  };
}
