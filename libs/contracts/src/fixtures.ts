import type { z } from 'zod';
import { ArtifactSchema } from './artifact';
import { AuditEventSchema, ReceiptSchema } from './audit';
import { AssignmentSchema, DeploymentSchema } from './deployment';
import {
  BenchmarkProfileDefinitionSchema,
  EvaluationRunSchema,
  EvaluationSuiteDefinitionSchema,
} from './evaluation';
import { CompatibleHardwareSchema } from './hardware';
import { LicenseSchema } from './license';
import { ModelSchema, ModelVersionSchema } from './model';
import {
  GpuInventorySchema,
  NodeConditionSchema,
  NodeInventorySchema,
  NodeLabelsSchema,
  NodeSchema,
  TaintSchema,
} from './node';
import {
  OpenAiChatChunkSchema,
  OpenAiChatRequestSchema,
  OpenAiChatResponseSchema,
  OpenAiCompletionChunkSchema,
  OpenAiCompletionRequestSchema,
  OpenAiCompletionResponseSchema,
  OpenAiModelListSchema,
} from './openai';
import { ProblemDetailsSchema } from './problem';
import { RuntimeSchema } from './runtime';
import { WorkloadStreamChunkSchema } from './streaming';
import { HeartbeatSchema } from './telemetry';
import { GatewayKeySchema, TenantSchema } from './tenancy';
import { UsageSchema } from './usage';
import { WorkloadRequestSchema, WorkloadResponseSchema } from './workload';

/** Folder of the golden fixtures, relative to the package root. */
export const FIXTURES_DIR = 'fixtures/v1';

/**
 * Every golden fixture and the schema it must satisfy. The fixture test fails
 * both for a file missing from this table and for an entry without a file, so
 * a contract cannot gain a fixture nobody checks or lose one silently.
 * Names are `<type>[.<variant>].json`.
 */
export const FIXTURE_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  'artifact.json': ArtifactSchema,
  'assignment.json': AssignmentSchema,
  'audit-event.genesis.json': AuditEventSchema,
  'audit-event.chained.json': AuditEventSchema,
  'compatible-hardware.gb10.json': CompatibleHardwareSchema,
  'deployment.json': DeploymentSchema,
  'evaluation-suite.json': EvaluationSuiteDefinitionSchema,
  'evaluation-run.json': EvaluationRunSchema,
  'benchmark-profile.json': BenchmarkProfileDefinitionSchema,
  'gateway-key.json': GatewayKeySchema,
  'gateway-key.revoked.json': GatewayKeySchema,
  'gpu-inventory.gb10-unified.json': GpuInventorySchema,
  'gpu-inventory.h100-discrete.json': GpuInventorySchema,
  'heartbeat.json': HeartbeatSchema,
  'heartbeat.h100-telemetry.json': HeartbeatSchema,
  'license.spdx.json': LicenseSchema,
  'license.custom.json': LicenseSchema,
  'model.json': ModelSchema,
  'model-version.json': ModelVersionSchema,
  'node.gb10.json': NodeSchema,
  'node-condition.json': NodeConditionSchema,
  'node-inventory.gb10-unified.json': NodeInventorySchema,
  'node-inventory.h100-discrete.json': NodeInventorySchema,
  'node-labels.json': NodeLabelsSchema,
  'openai-chat-chunk.first.json': OpenAiChatChunkSchema,
  'openai-chat-chunk.usage.json': OpenAiChatChunkSchema,
  'openai-chat-request.json': OpenAiChatRequestSchema,
  'openai-chat-request.stream.json': OpenAiChatRequestSchema,
  'openai-chat-response.json': OpenAiChatResponseSchema,
  'openai-completion-chunk.json': OpenAiCompletionChunkSchema,
  'openai-completion-request.json': OpenAiCompletionRequestSchema,
  'openai-completion-response.json': OpenAiCompletionResponseSchema,
  'openai-model-list.json': OpenAiModelListSchema,
  'problem.validation-failed.json': ProblemDetailsSchema,
  'problem.openai-model-not-found.json': ProblemDetailsSchema,
  'problem.not-ready.json': ProblemDetailsSchema,
  'receipt.json': ReceiptSchema,
  'runtime.fake-binary.json': RuntimeSchema,
  'runtime.vllm-container.json': RuntimeSchema,
  'taint.json': TaintSchema,
  'tenant.json': TenantSchema,
  'tenant.unlimited.json': TenantSchema,
  'usage.json': UsageSchema,
  'workload-request.chat.json': WorkloadRequestSchema,
  'workload-request.chat-stream.json': WorkloadRequestSchema,
  'workload-request.completion-pinned.json': WorkloadRequestSchema,
  'workload-response.chat.json': WorkloadResponseSchema,
  'workload-response.completion.json': WorkloadResponseSchema,
  'workload-stream-chunk.first.json': WorkloadStreamChunkSchema,
  'workload-stream-chunk.final.json': WorkloadStreamChunkSchema,
  'workload-stream-chunk.error.json': WorkloadStreamChunkSchema,
};
