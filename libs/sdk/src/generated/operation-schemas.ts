// Generated from libs/sdk/graphql/**/*.graphql and apps/api/schema.gql by scripts/generate-sdk.mjs; do not edit.
// Regenerate with `npm run sdk:generate`. zod schemas of the operations in operations.ts.

import { z } from 'zod';

/** Fragment from libs/sdk/graphql/cli/controller-keys.graphql. */
export const CliControllerRingKeyFragmentSchema = z.object({
  keyId: z.string(),
  sshFingerprint: z.string(),
  publicKey: z.string(),
  state: z.string(),
  rotationId: z.string().nullable(),
  acceptUntil: z.string().nullable(),
  stateChangedAt: z.string().nullable(),
});

/** Fragment from libs/sdk/graphql/cli/data-policy.graphql. */
export const CliDataPolicyFragmentSchema = z.object({
  tenantId: z.string(),
  dataClass: z.string(),
  retentionMode: z.string(),
  retentionDays: z.number().int().nullable(),
  evaluationCaptureConsent: z.boolean(),
  configured: z.boolean(),
  updatedBy: z.string(),
  updatedAt: z.string(),
});

/** Fragment from libs/sdk/graphql/cli/evaluation.graphql. */
export const CliEvaluationRunFragmentSchema = z.object({
  id: z.string(),
  modelRef: z.string(),
  deploymentId: z.string(),
  suite: z.string(),
  profile: z.string().nullable(),
  state: z.string(),
  passed: z.boolean().nullable(),
  reasons: z.array(z.string()),
  errorCode: z.string().nullable(),
  workflowId: z.string(),
  temporalUiUrl: z.string(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  scores: z
    .object({
      passRate: z.number(),
      passedCases: z.number().int(),
      totalCases: z.number().int(),
      passThreshold: z.number(),
      cases: z.array(
        z.object({
          caseId: z.string(),
          grader: z.string(),
          passed: z.boolean(),
          reason: z.string().nullable(),
          errorCode: z.string().nullable(),
        }),
      ),
    })
    .nullable(),
  metrics: z
    .object({
      requests: z.number().int(),
      errors: z.number().int(),
      errorRate: z.number(),
      ttftMs: z
        .object({
          p50: z.number(),
          p95: z.number(),
          p99: z.number(),
        })
        .nullable(),
      tokensPerSecond: z.number(),
      completionTokens: z.number().int(),
      durationMs: z.number(),
      concurrency: z.number().int(),
    })
    .nullable(),
});

/** Fragment from libs/sdk/graphql/cli/fleet.graphql. */
export const CliBootstrapTokenFragmentSchema = z.object({
  id: z.string(),
  prefix: z.string(),
  nodeName: z.string().nullable(),
  labels: z.array(
    z.object({
      key: z.string(),
      value: z.string(),
    }),
  ),
  autoApprove: z.boolean(),
  createdBy: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  usedAt: z.string().nullable(),
  usedByNodeId: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

/** Fragment from libs/sdk/graphql/cli/fleet.graphql. */
export const CliDeploymentFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  modelRef: z.string(),
  purpose: z.string(),
  state: z.string(),
  stateReason: z.string().nullable(),
  desiredReplicas: z.number().int(),
  readyReplicas: z.number().int(),
  generation: z.number().int(),
  observedGeneration: z.number().int(),
  workflowId: z.string(),
  temporalUiUrl: z.string(),
  createdAt: z.string(),
  createdBy: z.string(),
  updatedAt: z.string(),
  assignments: z.array(
    z.object({
      id: z.string(),
      deploymentId: z.string(),
      nodeId: z.string(),
      nodeName: z.string(),
      intent: z.string(),
      generation: z.number().int(),
      ackedGeneration: z.number().int().nullable(),
      observedGeneration: z.number().int().nullable(),
      observedState: z.string().nullable(),
      observedAt: z.string().nullable(),
      inFlight: z.number().int().nullable(),
      endpointPort: z.number().int().nullable(),
      leaseExpiresAt: z.string(),
      message: z.string().nullable(),
    }),
  ),
});

/** Fragment from libs/sdk/graphql/cli/fleet.graphql. */
export const CliFleetNodeFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  lifecycle: z.string(),
  readiness: z.string(),
  cordoned: z.boolean(),
  heartbeatAgeSeconds: z.number().nullable(),
  address: z.string(),
  sshPort: z.number().int(),
  agentVersion: z.string(),
  agentProtocol: z.number().int(),
  agentOutdated: z.boolean(),
  agentOutdatedReason: z.string().nullable(),
  architecture: z.string(),
  cpuCores: z.number().int(),
  systemMemoryBytes: z.number(),
  hostKeyFingerprint: z.string(),
  keyId: z.string(),
  nextKeyId: z.string().nullable(),
  credentialSerial: z.number().int(),
  credentialExpiresAt: z.string().nullable(),
  leaseRenewedAt: z.string().nullable(),
  leaseExpiresAt: z.string().nullable(),
  enrolledAt: z.string(),
  updatedAt: z.string(),
  enrollWorkflowId: z.string(),
  temporalUiUrl: z.string(),
  labels: z.array(
    z.object({
      key: z.string(),
      value: z.string(),
    }),
  ),
  taints: z.array(
    z.object({
      key: z.string(),
      value: z.string(),
      effect: z.string(),
    }),
  ),
  conditions: z.array(
    z.object({
      type: z.string(),
      status: z.string(),
      reason: z.string(),
      message: z.string().nullable(),
      lastTransitionAt: z.string(),
    }),
  ),
  gpus: z.array(
    z.object({
      index: z.number().int(),
      name: z.string(),
      uuid: z.string(),
      memoryModel: z.string(),
      memorySource: z.string(),
      totalMemoryBytes: z.number().nullable(),
      freeMemoryBytes: z.number().nullable(),
      computeCapability: z.string(),
    }),
  ),
  assignments: z.array(
    z.object({
      id: z.string(),
      deploymentId: z.string(),
      nodeId: z.string(),
      nodeName: z.string(),
      intent: z.string(),
      generation: z.number().int(),
      ackedGeneration: z.number().int().nullable(),
      observedGeneration: z.number().int().nullable(),
      observedState: z.string().nullable(),
      observedAt: z.string().nullable(),
      inFlight: z.number().int().nullable(),
      endpointPort: z.number().int().nullable(),
      leaseExpiresAt: z.string(),
      message: z.string().nullable(),
    }),
  ),
});

/** Fragment from libs/sdk/graphql/cli/registry.graphql. */
export const CliModelFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  displayName: z.string(),
  description: z.string().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  versions: z.array(
    z.object({
      ref: z.string(),
      state: z.string(),
    }),
  ),
});

/** Fragment from libs/sdk/graphql/cli/registry.graphql. */
export const CliLicenseFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  spdxId: z.string().nullable(),
  customName: z.string().nullable(),
  termsUri: z.string().nullable(),
  termsDigest: z.string().nullable(),
  commercialUse: z.boolean(),
  allowedDataClasses: z.array(z.string()),
  attribution: z.string().nullable(),
  approvalState: z.string(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  note: z.string().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
});

/** Fragment from libs/sdk/graphql/cli/registry.graphql. */
export const CliRuntimeFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  kind: z.string(),
  allowed: z.boolean(),
  packaging: z.object({
    type: z.string(),
    image: z.string().nullable(),
    digest: z.string(),
  }),
  launch: z.object({
    executable: z.string(),
    args: z.array(z.string()),
    envAllowlist: z.array(z.string()),
    containerPort: z.number().int().nullable(),
  }),
  health: z.object({
    path: z.string(),
    startupTimeoutMs: z.number().int(),
    intervalMs: z.number().int(),
  }),
  supportedHardware: z.object({
    architectures: z.array(z.string()),
    memoryModels: z.array(z.string()),
    minComputeCapability: z.string(),
    maxComputeCapability: z.string().nullable(),
    minCudaVersion: z.string().nullable(),
    gpusPerReplica: z.number().int(),
    minMemoryBytesPerReplica: z.number().nullable(),
  }),
  createdBy: z.string(),
  createdAt: z.string(),
});

/** Fragment from libs/sdk/graphql/cli/registry.graphql. */
export const CliModelVersionFragmentSchema = z.object({
  id: z.string(),
  ref: z.string(),
  model: z.string(),
  version: z.string(),
  state: z.string(),
  stateReason: z.string().nullable(),
  allowedEvents: z.array(z.string()),
  contextLength: z.number().int().nullable(),
  parameterCount: z.number().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  artifact: z.object({
    uri: z.string(),
    digest: z.string(),
    sizeBytes: z.number(),
    format: z.string(),
    provenance: z.object({
      source: z.string(),
      uploader: z.string(),
      uploadedAt: z.string(),
      signature: z
        .object({
          algorithm: z.string(),
          keyId: z.string(),
        })
        .nullable(),
    }),
  }),
  requirements: z.object({
    architectures: z.array(z.string()),
    memoryModels: z.array(z.string()),
    minComputeCapability: z.string(),
    maxComputeCapability: z.string().nullable(),
    minCudaVersion: z.string().nullable(),
    gpusPerReplica: z.number().int(),
    minMemoryBytesPerReplica: z.number().nullable(),
  }),
  verification: z
    .object({
      ok: z.boolean(),
      digest: z.string().nullable(),
      sizeBytes: z.number().nullable(),
      store: z.string(),
      verifiedAt: z.string(),
      code: z.string().nullable(),
      message: z.string().nullable(),
    })
    .nullable(),
  evaluation: z
    .object({
      runId: z.string(),
      suite: z.string(),
      passed: z.boolean(),
      evaluatedAt: z.string(),
    })
    .nullable(),
  runtimeEnv: z.array(
    z.object({
      name: z.string(),
      value: z.string(),
    }),
  ),
  license: z.object({
    name: z.string(),
    approvalState: z.string(),
  }),
  runtime: z.object({
    id: z.string(),
    allowed: z.boolean(),
  }),
});

/** Fragment from libs/sdk/graphql/cli/rollouts.graphql. */
export const CliAliasFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  dataClass: z.string(),
  currentRevision: z.number().int(),
  canaryWeight: z.number().int(),
  canaryDeploymentId: z.string().nullable(),
  current: z
    .object({
      revision: z.number().int(),
      modelRef: z.string(),
      deploymentId: z.string(),
      deploymentName: z.string().nullable(),
      reason: z.string(),
      restoredFrom: z.number().int().nullable(),
    })
    .nullable(),
  revisions: z.array(
    z.object({
      revision: z.number().int(),
      modelRef: z.string(),
      deploymentId: z.string(),
      deploymentName: z.string().nullable(),
      reason: z.string(),
      restoredFrom: z.number().int().nullable(),
      rolloutId: z.string().nullable(),
      createdBy: z.string(),
      createdAt: z.string(),
    }),
  ),
  activeRollout: z
    .object({
      id: z.string(),
      state: z.string(),
      currentWeight: z.number().int(),
    })
    .nullable(),
});

/** Fragment from libs/sdk/graphql/cli/rollouts.graphql. */
export const CliRolloutFragmentSchema = z.object({
  id: z.string(),
  alias: z.string(),
  modelRef: z.string(),
  baseRevision: z.number().int(),
  state: z.string(),
  stateReason: z.string().nullable(),
  refusalCode: z.string().nullable(),
  steps: z.array(z.number().int()),
  currentStep: z.number().int(),
  currentWeight: z.number().int(),
  canaryDeploymentId: z.string().nullable(),
  workflowId: z.string(),
  temporalUiUrl: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  analyses: z.array(
    z.object({
      step: z.number().int(),
      weight: z.number().int(),
      window: z.number().int(),
      verdict: z.string(),
      reasons: z.array(z.string()),
      canaryRequests: z.number().int(),
      canaryErrors: z.number().int(),
      canaryErrorRate: z.number(),
      canaryP95Ms: z.number().nullable(),
      stableRequests: z.number().int().nullable(),
      stableErrorRate: z.number().nullable(),
      stableP95Ms: z.number().nullable(),
    }),
  ),
  receipts: z.array(
    z.object({
      seq: z.number().int(),
      action: z.string(),
      result: z.string(),
      evidenceJson: z.string(),
      hash: z.string(),
      occurredAt: z.string(),
    }),
  ),
});

/** Fragment from libs/sdk/graphql/cli/signing.graphql. */
export const CliTrustedSigningKeyFragmentSchema = z.object({
  keyId: z.string(),
  algorithm: z.string(),
  publicKey: z.string(),
  label: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  revokedBy: z.string().nullable(),
});

/** Fragment from libs/sdk/graphql/cli/tenancy.graphql. */
export const CliGatewayKeyFragmentSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  name: z.string(),
  prefix: z.string(),
  aliases: z.array(z.string()),
  state: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  revokedBy: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});

/** Fragment from libs/sdk/graphql/cli/tenancy.graphql. */
export const CliTenantFragmentSchema = z.object({
  id: z.string(),
  displayName: z.string().nullable(),
  quota: z.object({
    requestsPerMinute: z.number().int().nullable(),
    tokensPerMinute: z.number().nullable(),
    maxConcurrentRequests: z.number().int().nullable(),
  }),
  keyCount: z.number().int(),
  activeKeyCount: z.number().int(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedBy: z.string(),
  updatedAt: z.string(),
});

/** Fragment from libs/sdk/graphql/console/access.graphql. */
export const ConsoleOperatorFragmentSchema = z.object({
  id: z.string(),
  username: z.string(),
  role: z.string(),
  disabledAt: z.string().nullable(),
  createdAt: z.string(),
});

/** Fragment from libs/sdk/graphql/console/access.graphql. */
export const ConsoleApiTokenFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  role: z.string(),
  ownerUsername: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

/** Fragment from libs/sdk/graphql/console/benchmarks.graphql. */
export const ConsoleLoadFiguresFragmentSchema = z.object({
  concurrency: z.number().int(),
  requests: z.number().int(),
  errors: z.number().int(),
  errorRate: z.number(),
  ttftMs: z
    .object({
      p50: z.number(),
      p95: z.number(),
      p99: z.number(),
    })
    .nullable(),
  latencyMs: z
    .object({
      p50: z.number(),
      p95: z.number(),
      p99: z.number(),
    })
    .nullable(),
  requestsPerSecond: z.number(),
  tokensPerSecond: z.number(),
  queueDepth: z
    .object({
      max: z.number(),
      mean: z.number(),
    })
    .nullable(),
  durationMs: z.number(),
});

/** Fragment from libs/sdk/graphql/console/deployments.graphql. */
export const ConsoleDeploymentFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  modelRef: z.string(),
  purpose: z.string(),
  state: z.string(),
  stateReason: z.string().nullable(),
  generation: z.number().int(),
  observedGeneration: z.number().int(),
  desiredReplicas: z.number().int(),
  readyReplicas: z.number().int(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  workflowId: z.string(),
  temporalUiUrl: z.string(),
  assignments: z.array(
    z.object({
      id: z.string(),
      nodeId: z.string(),
      nodeName: z.string(),
      generation: z.number().int(),
      intent: z.string(),
      leaseExpiresAt: z.string(),
      ackedGeneration: z.number().int().nullable(),
      observedState: z.string().nullable(),
      observedGeneration: z.number().int().nullable(),
      inFlight: z.number().int().nullable(),
      message: z.string().nullable(),
      observedAt: z.string().nullable(),
    }),
  ),
  placement: z
    .object({
      decidedAt: z.string(),
      chosen: z.array(
        z.object({
          node: z.string(),
          reason: z.string(),
        }),
      ),
      rejected: z.array(
        z.object({
          node: z.string(),
          reasons: z.array(z.string()),
        }),
      ),
      unplaced: z.number().int(),
    })
    .nullable(),
});

/** Fragment from libs/sdk/graphql/console/fleet-health.graphql. */
export const ConsoleHealingPlanFragmentSchema = z.object({
  dryRun: z.boolean(),
  actions: z.array(
    z.object({
      rule: z.string(),
      kind: z.string(),
      target: z.string(),
      nodeId: z.string(),
      deploymentId: z.string().nullable(),
      reason: z.string(),
      outcome: z.string().nullable(),
      receiptHash: z.string().nullable(),
    }),
  ),
  skipped: z.array(
    z.object({
      rule: z.string(),
      target: z.string(),
      reason: z.string(),
    }),
  ),
});

/** Fragment from libs/sdk/graphql/console/fleet-health.graphql. */
export const ConsoleReconcileRunFragmentSchema = z.object({
  dryRun: z.boolean(),
  inSync: z.boolean(),
  workflowId: z.string(),
  temporalUiUrl: z.string(),
  receiptHash: z.string().nullable(),
  drift: z.array(
    z.object({
      kind: z.string(),
      target: z.string(),
      deploymentId: z.string().nullable(),
      nodeId: z.string().nullable(),
      desired: z.string(),
      observed: z.string(),
      note: z.string(),
      repair: z.string().nullable(),
    }),
  ),
  repairs: z.array(
    z.object({
      kind: z.string(),
      target: z.string(),
      deploymentId: z.string(),
      reason: z.string(),
      outcome: z.string(),
    }),
  ),
});

/** Fragment from libs/sdk/graphql/console/models.graphql. */
export const ConsoleEvaluationRunFragmentSchema = z.object({
  id: z.string(),
  modelRef: z.string(),
  deploymentId: z.string(),
  suite: z.string(),
  profile: z.string().nullable(),
  state: z.string(),
  passed: z.boolean().nullable(),
  reasons: z.array(z.string()),
  errorCode: z.string().nullable(),
  workflowId: z.string(),
  temporalUiUrl: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  scores: z
    .object({
      passRate: z.number(),
      passedCases: z.number().int(),
      totalCases: z.number().int(),
      passThreshold: z.number(),
    })
    .nullable(),
  metrics: z
    .object({
      requests: z.number().int(),
      errorRate: z.number(),
      tokensPerSecond: z.number(),
      ttftMs: z
        .object({
          p50: z.number(),
          p95: z.number(),
          p99: z.number(),
        })
        .nullable(),
    })
    .nullable(),
});

/** Fragment from libs/sdk/graphql/console/models.graphql. */
export const ConsoleModelVersionFragmentSchema = z.object({
  id: z.string(),
  ref: z.string(),
  model: z.string(),
  version: z.string(),
  runtimeKind: z.string(),
  state: z.string(),
  stateReason: z.string().nullable(),
  allowedEvents: z.array(z.string()),
  contextLength: z.number().int().nullable(),
  parameterCount: z.number().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  artifact: z.object({
    uri: z.string(),
    digest: z.string(),
    sizeBytes: z.number(),
    format: z.string(),
    provenance: z.object({
      source: z.string(),
      uploader: z.string(),
      uploadedAt: z.string(),
      signature: z
        .object({
          algorithm: z.string(),
          keyId: z.string(),
        })
        .nullable(),
    }),
  }),
  requirements: z.object({
    architectures: z.array(z.string()),
    memoryModels: z.array(z.string()),
    minComputeCapability: z.string(),
    maxComputeCapability: z.string().nullable(),
    minCudaVersion: z.string().nullable(),
    gpusPerReplica: z.number().int(),
    minMemoryBytesPerReplica: z.number().nullable(),
  }),
  verification: z
    .object({
      ok: z.boolean(),
      digest: z.string().nullable(),
      sizeBytes: z.number().nullable(),
      store: z.string(),
      verifiedAt: z.string(),
      code: z.string().nullable(),
      message: z.string().nullable(),
    })
    .nullable(),
  evaluation: z
    .object({
      runId: z.string(),
      suite: z.string(),
      passed: z.boolean(),
      evaluatedAt: z.string(),
      scores: z.array(
        z.object({
          name: z.string(),
          value: z.number(),
        }),
      ),
    })
    .nullable(),
  license: z.object({
    id: z.string(),
    name: z.string(),
    kind: z.string(),
    spdxId: z.string().nullable(),
    customName: z.string().nullable(),
    termsUri: z.string().nullable(),
    commercialUse: z.boolean(),
    allowedDataClasses: z.array(z.string()),
    approvalState: z.string(),
    decidedBy: z.string().nullable(),
    decidedAt: z.string().nullable(),
    note: z.string().nullable(),
  }),
  runtime: z.object({
    id: z.string(),
    name: z.string(),
    version: z.string(),
    kind: z.string(),
    allowed: z.boolean(),
    supportedHardware: z.object({
      architectures: z.array(z.string()),
      memoryModels: z.array(z.string()),
      minComputeCapability: z.string(),
      maxComputeCapability: z.string().nullable(),
      minCudaVersion: z.string().nullable(),
      gpusPerReplica: z.number().int(),
      minMemoryBytesPerReplica: z.number().nullable(),
    }),
  }),
});

/** Fragment from libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleFleetNodeFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  lifecycle: z.string(),
  readiness: z.string(),
  conditions: z.array(
    z.object({
      type: z.string(),
      status: z.string(),
      reason: z.string(),
      message: z.string().nullable(),
      lastTransitionAt: z.string(),
    }),
  ),
  cordoned: z.boolean(),
  actions: z.array(
    z.object({
      action: z.string(),
      allowed: z.boolean(),
      reason: z.string().nullable(),
    }),
  ),
  labels: z.array(
    z.object({
      key: z.string(),
      value: z.string(),
    }),
  ),
  taints: z.array(
    z.object({
      key: z.string(),
      value: z.string(),
      effect: z.string(),
    }),
  ),
  address: z.string(),
  sshPort: z.number().int(),
  hostKeyFingerprint: z.string(),
  keyId: z.string(),
  nextKeyId: z.string().nullable(),
  credentialSerial: z.number().int(),
  credentialExpiresAt: z.string().nullable(),
  leaseRenewedAt: z.string().nullable(),
  leaseExpiresAt: z.string().nullable(),
  heartbeatAgeSeconds: z.number().nullable(),
  architecture: z.string(),
  cpuCores: z.number().int(),
  systemMemoryBytes: z.number(),
  agentVersion: z.string(),
  agentProtocol: z.number().int(),
  agentOutdated: z.boolean(),
  agentOutdatedReason: z.string().nullable(),
  gpus: z.array(
    z.object({
      index: z.number().int(),
      name: z.string(),
      uuid: z.string(),
      memoryModel: z.string(),
      memorySource: z.string(),
      totalMemoryBytes: z.number().nullable(),
      freeMemoryBytes: z.number().nullable(),
      computeCapability: z.string(),
    }),
  ),
  gpuTelemetry: z.array(
    z.object({
      uuid: z.string(),
      index: z.number().int().nullable(),
      sampledAt: z.string().nullable(),
      utilizationPercent: z.number().nullable(),
      memoryUsedBytes: z.number().nullable(),
      memoryTotalBytes: z.number().nullable(),
      memorySource: z.string().nullable(),
      temperatureCelsius: z.number().nullable(),
      powerWatts: z.number().nullable(),
      powerLimitWatts: z.number().nullable(),
      throttleReasons: z.array(z.string()).nullable(),
      eccUncorrectedErrors: z.number().int().nullable(),
      lastXid: z.number().int().nullable(),
      lastError: z.string().nullable(),
      lost: z.boolean(),
      processMemoryBytes: z.number(),
      processCount: z.number().int(),
    }),
  ),
  assignments: z.array(
    z.object({
      id: z.string(),
      deploymentId: z.string(),
      nodeName: z.string(),
      generation: z.number().int(),
      intent: z.string(),
      leaseExpiresAt: z.string(),
      ackedGeneration: z.number().int().nullable(),
      observedState: z.string().nullable(),
      observedGeneration: z.number().int().nullable(),
      endpointPort: z.number().int().nullable(),
      inFlight: z.number().int().nullable(),
      message: z.string().nullable(),
      observedAt: z.string().nullable(),
    }),
  ),
  enrollWorkflowId: z.string(),
  temporalUiUrl: z.string(),
  enrolledAt: z.string(),
  updatedAt: z.string(),
});

/** Fragment from libs/sdk/graphql/console/policies.graphql. */
export const ConsoleRuntimeFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  kind: z.string(),
  allowed: z.boolean(),
  createdBy: z.string(),
  updatedAt: z.string(),
  packaging: z.object({
    type: z.string(),
    image: z.string().nullable(),
    digest: z.string(),
  }),
});

/** Fragment from libs/sdk/graphql/console/policies.graphql. */
export const ConsoleDataPolicyFragmentSchema = z.object({
  tenantId: z.string(),
  dataClass: z.string(),
  retentionMode: z.string(),
  retentionDays: z.number().int().nullable(),
  evaluationCaptureConsent: z.boolean(),
  configured: z.boolean(),
  updatedBy: z.string(),
  updatedAt: z.string(),
});

/** Fragment from libs/sdk/graphql/console/policies.graphql. */
export const ConsoleSigningKeyFragmentSchema = z.object({
  keyId: z.string(),
  label: z.string(),
  algorithm: z.string(),
  createdAt: z.string(),
  createdBy: z.string(),
  revokedAt: z.string().nullable(),
  revokedBy: z.string().nullable(),
});

/** Fragment from libs/sdk/graphql/console/registry.graphql. */
export const ConsoleRegistryLicenseFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  spdxId: z.string().nullable(),
  customName: z.string().nullable(),
  termsUri: z.string().nullable(),
  termsDigest: z.string().nullable(),
  commercialUse: z.boolean(),
  allowedDataClasses: z.array(z.string()),
  attribution: z.string().nullable(),
  approvalState: z.string(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  note: z.string().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
});

/** Fragment from libs/sdk/graphql/console/registry.graphql. */
export const ConsoleRegistryRuntimeFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  kind: z.string(),
  allowed: z.boolean(),
  metricsFormat: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  packaging: z.object({
    type: z.string(),
    image: z.string().nullable(),
    digest: z.string(),
  }),
  launch: z.object({
    executable: z.string(),
    args: z.array(z.string()),
  }),
  supportedHardware: z.object({
    architectures: z.array(z.string()),
    memoryModels: z.array(z.string()),
    gpusPerReplica: z.number().int(),
    minComputeCapability: z.string(),
  }),
});

/** Fragment from libs/sdk/graphql/console/registry.graphql. */
export const ConsoleRegistrySuiteFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  digest: z.string(),
  caseCount: z.number().int(),
  passThreshold: z.number(),
  concurrency: z.number().int(),
  caseTimeoutSeconds: z.number().int(),
  createdBy: z.string(),
  createdAt: z.string(),
});

/** Fragment from libs/sdk/graphql/console/registry.graphql. */
export const ConsoleRegistryProfileFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  digest: z.string(),
  concurrency: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  durationSeconds: z.number().int().nullable(),
  requestCount: z.number().int().nullable(),
  requestTimeoutSeconds: z.number().int(),
  maxErrorRate: z.number().nullable(),
  maxTtftP95Ms: z.number().nullable(),
  minTokensPerSecond: z.number().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
});

/** Fragment from libs/sdk/graphql/console/rollouts.graphql. */
export const ConsoleRolloutFragmentSchema = z.object({
  id: z.string(),
  alias: z.string(),
  modelRef: z.string(),
  state: z.string(),
  currentStep: z.number().int(),
  currentWeight: z.number().int(),
  steps: z.array(z.number().int()),
  createdAt: z.string(),
});

/** Fragment from libs/sdk/graphql/console/rollouts.graphql. */
export const ConsoleAliasFragmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  dataClass: z.string(),
  currentRevision: z.number().int(),
  canaryWeight: z.number().int(),
  canaryDeploymentId: z.string().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  current: z
    .object({
      revision: z.number().int(),
      modelRef: z.string(),
      modelVersionId: z.string(),
      deploymentId: z.string(),
      deploymentName: z.string().nullable(),
      reason: z.string(),
      restoredFrom: z.number().int().nullable(),
      rolloutId: z.string().nullable(),
      createdBy: z.string(),
      createdAt: z.string(),
    })
    .nullable(),
  activeRollout: ConsoleRolloutFragmentSchema.nullable(),
});

/** Fragment from libs/sdk/graphql/console/tenants.graphql. */
export const ConsoleGatewayKeyFragmentSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  name: z.string(),
  prefix: z.string(),
  aliases: z.array(z.string()),
  state: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  revokedBy: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});

/** Fragment from libs/sdk/graphql/console/tenants.graphql. */
export const ConsoleTenantFragmentSchema = z.object({
  id: z.string(),
  displayName: z.string().nullable(),
  quota: z.object({
    requestsPerMinute: z.number().int().nullable(),
    tokensPerMinute: z.number().nullable(),
    maxConcurrentRequests: z.number().int().nullable(),
  }),
  keyCount: z.number().int(),
  activeKeyCount: z.number().int(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedBy: z.string(),
  updatedAt: z.string(),
});

/** From libs/sdk/graphql/cli/controller-keys.graphql. */
export const ControllerKeyRingQuerySchema = z.object({
  controllerKeyRing: z.object({
    phase: z.string(),
    rotationWorkflowId: z.string().nullable(),
    temporalUiUrl: z.string().nullable(),
    keys: z.array(CliControllerRingKeyFragmentSchema),
  }),
});

/** From libs/sdk/graphql/cli/controller-keys.graphql. */
export const RotateControllerKeyMutationSchema = z.object({
  rotateControllerKey: z.object({
    rotationId: z.string(),
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    switchAt: z.string(),
    retireAt: z.string(),
    nextKey: CliControllerRingKeyFragmentSchema,
  }),
});

/** From libs/sdk/graphql/cli/data-policy.graphql. */
export const DataPoliciesQuerySchema = z.object({
  dataPolicies: z.array(CliDataPolicyFragmentSchema),
});

/** From libs/sdk/graphql/cli/data-policy.graphql. */
export const DataPolicyQuerySchema = z.object({
  dataPolicy: CliDataPolicyFragmentSchema,
});

/** From libs/sdk/graphql/cli/data-policy.graphql. */
export const SetDataPolicyMutationSchema = z.object({
  setDataPolicy: CliDataPolicyFragmentSchema,
});

/** From libs/sdk/graphql/cli/digest.graphql. */
export const ControlPlaneDigestQuerySchema = z.object({
  controlPlaneDigest: z.object({
    registry: z.string(),
    desiredState: z.string(),
    auditChain: z.object({
      events: z.number().int(),
      headHash: z.string().nullable(),
      valid: z.boolean(),
    }),
  }),
});

/** From libs/sdk/graphql/cli/digest.graphql. */
export const AuditEventHashQuerySchema = z.object({
  auditEvent: z
    .object({
      seq: z.number().int(),
      hash: z.string(),
    })
    .nullable(),
});

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export const CreateEvaluationSuiteMutationSchema = z.object({
  createEvaluationSuite: z.object({
    id: z.string(),
    name: z.string(),
    digest: z.string(),
    caseCount: z.number().int(),
    passThreshold: z.number(),
    createdAt: z.string(),
  }),
});

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export const EvaluationSuitesQuerySchema = z.object({
  evaluationSuites: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      digest: z.string(),
      caseCount: z.number().int(),
      passThreshold: z.number(),
      createdAt: z.string(),
    }),
  ),
});

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export const CreateBenchmarkProfileMutationSchema = z.object({
  createBenchmarkProfile: z.object({
    id: z.string(),
    name: z.string(),
    digest: z.string(),
    concurrency: z.number().int(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    durationSeconds: z.number().int().nullable(),
    requestCount: z.number().int().nullable(),
    createdAt: z.string(),
  }),
});

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export const BenchmarkProfilesQuerySchema = z.object({
  benchmarkProfiles: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      digest: z.string(),
      concurrency: z.number().int(),
      inputTokens: z.number().int(),
      outputTokens: z.number().int(),
      durationSeconds: z.number().int().nullable(),
      requestCount: z.number().int().nullable(),
      createdAt: z.string(),
    }),
  ),
});

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export const StartEvaluationMutationSchema = z.object({
  startEvaluation: z.object({
    runId: z.string(),
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    run: CliEvaluationRunFragmentSchema.nullable(),
  }),
});

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export const EvaluationRunQuerySchema = z.object({
  evaluationRun: CliEvaluationRunFragmentSchema.nullable(),
});

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export const EvaluationRunsQuerySchema = z.object({
  evaluationRuns: z.array(CliEvaluationRunFragmentSchema),
});

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export const BenchmarkComparisonQuerySchema = z.object({
  benchmarkComparison: z.object({
    profile: z.string(),
    profileDigest: z.string(),
    baseline: z.string(),
    regressed: z.boolean(),
    thresholds: z.object({
      maxTtftP95Increase: z.number(),
      ttftSlackMs: z.number(),
      maxTokensPerSecondDrop: z.number(),
      maxErrorRateIncrease: z.number(),
      maxPassRateDrop: z.number(),
    }),
    entries: z.array(
      z.object({
        modelRef: z.string(),
        baseline: z.boolean(),
        passRate: z.number().nullable(),
        ttftP50Ms: z.number().nullable(),
        ttftP95Ms: z.number().nullable(),
        ttftP99Ms: z.number().nullable(),
        tokensPerSecond: z.number().nullable(),
        errorRate: z.number().nullable(),
        sameSuiteAsBaseline: z.boolean(),
        regressed: z.boolean(),
        regressions: z.array(
          z.object({
            metric: z.string(),
            baseline: z.number(),
            candidate: z.number(),
            reason: z.string(),
          }),
        ),
        run: z
          .object({
            id: z.string(),
          })
          .nullable(),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const NodesQuerySchema = z.object({
  nodes: z.array(CliFleetNodeFragmentSchema),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const NodeQuerySchema = z.object({
  node: CliFleetNodeFragmentSchema.nullable(),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const BootstrapTokensQuerySchema = z.object({
  bootstrapTokens: z.array(CliBootstrapTokenFragmentSchema),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const CreateBootstrapTokenMutationSchema = z.object({
  createBootstrapToken: z.object({
    token: z.string(),
    agentInvocation: z.string(),
    controllerUrl: z.string(),
    controllerKeyFingerprint: z.string(),
    bootstrapToken: CliBootstrapTokenFragmentSchema,
  }),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const RevokeBootstrapTokenMutationSchema = z.object({
  revokeBootstrapToken: CliBootstrapTokenFragmentSchema,
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const ApproveNodeMutationSchema = z.object({
  approveNode: z.object({
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    receiptHash: z.string().nullable(),
    node: CliFleetNodeFragmentSchema,
  }),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const RejectNodeMutationSchema = z.object({
  rejectNode: z.object({
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    receiptHash: z.string().nullable(),
    node: CliFleetNodeFragmentSchema,
  }),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const SetNodeLabelsMutationSchema = z.object({
  setNodeLabels: CliFleetNodeFragmentSchema,
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const SetNodeTaintsMutationSchema = z.object({
  setNodeTaints: CliFleetNodeFragmentSchema,
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const CordonNodeMutationSchema = z.object({
  node: CliFleetNodeFragmentSchema,
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const UncordonNodeMutationSchema = z.object({
  node: CliFleetNodeFragmentSchema,
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const DrainNodeMutationSchema = z.object({
  drainNode: z.object({
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    receiptHash: z.string(),
    replicasAtStart: z.number().int(),
    inFlightAtStart: z.number().int(),
    inFlightAtTimeout: z.number().int(),
    node: CliFleetNodeFragmentSchema,
  }),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const RotateNodeCredentialMutationSchema = z.object({
  rotateNodeCredential: z.object({
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    receiptHash: z.string().nullable(),
    node: CliFleetNodeFragmentSchema,
  }),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const RegisterModelVersionMutationSchema = z.object({
  registerModelVersion: z.object({
    id: z.string(),
    ref: z.string(),
    model: z.string(),
    version: z.string(),
    runtimeKind: z.string(),
    artifactDigest: z.string(),
    createdAt: z.string(),
    createdBy: z.string(),
  }),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const DeploymentsQuerySchema = z.object({
  deployments: z.array(CliDeploymentFragmentSchema),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const DeploymentQuerySchema = z.object({
  deployment: CliDeploymentFragmentSchema.nullable(),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const PlacementPlanQuerySchema = z.object({
  placementPlan: z.object({
    strategy: z.string(),
    replicas: z.number().int(),
    chosen: z.array(
      z.object({
        node: z.string(),
        reason: z.string(),
      }),
    ),
    rejected: z.array(
      z.object({
        node: z.string(),
        reasons: z.array(z.string()),
      }),
    ),
    unplaced: z.number().int(),
  }),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const CreateDeploymentMutationSchema = z.object({
  createDeployment: z.object({
    deploymentId: z.string(),
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    deployment: CliDeploymentFragmentSchema.nullable(),
  }),
});

/** From libs/sdk/graphql/cli/fleet.graphql. */
export const StopDeploymentMutationSchema = z.object({
  stopDeployment: z.object({
    deploymentId: z.string(),
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    deployment: CliDeploymentFragmentSchema.nullable(),
  }),
});

/** From libs/sdk/graphql/cli/healing.graphql. */
export const HealMutationSchema = z.object({
  heal: z.object({
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    plan: z.object({
      dryRun: z.boolean(),
      rules: z.object({
        crashLoopRestarts: z.number().int(),
        healthFailureThreshold: z.number().int(),
        nodeCrashThreshold: z.number().int(),
        nodeCrashWindowSeconds: z.number().int(),
        nodeCrashMinReplicas: z.number().int(),
        maxActionsPerPass: z.number().int(),
        cooldownSeconds: z.number().int(),
      }),
      actions: z.array(
        z.object({
          rule: z.string(),
          kind: z.string(),
          target: z.string(),
          nodeId: z.string(),
          deploymentId: z.string().nullable(),
          reason: z.string(),
          evidenceJson: z.string(),
          outcome: z.string().nullable(),
          receiptHash: z.string().nullable(),
        }),
      ),
      skipped: z.array(
        z.object({
          rule: z.string(),
          target: z.string(),
          reason: z.string(),
        }),
      ),
    }),
  }),
});

/** From libs/sdk/graphql/cli/reconcile.graphql. */
export const ReconcileMutationSchema = z.object({
  reconcileFleet: z.object({
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    dryRun: z.boolean(),
    inSync: z.boolean(),
    receiptHash: z.string().nullable(),
    receiptSeq: z.number().int().nullable(),
    drift: z.array(
      z.object({
        kind: z.string(),
        target: z.string(),
        deploymentId: z.string().nullable(),
        nodeId: z.string().nullable(),
        desired: z.string(),
        observed: z.string(),
        repair: z.string().nullable(),
        note: z.string(),
      }),
    ),
    repairs: z.array(
      z.object({
        kind: z.string(),
        target: z.string(),
        deploymentId: z.string(),
        fromGeneration: z.number().int().nullable(),
        toGeneration: z.number().int().nullable(),
        stop: z.boolean(),
        reason: z.string(),
        outcome: z.string(),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const ModelsQuerySchema = z.object({
  models: z.array(CliModelFragmentSchema),
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const ModelQuerySchema = z.object({
  model: CliModelFragmentSchema.nullable(),
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const CreateModelMutationSchema = z.object({
  createModel: CliModelFragmentSchema,
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const LicensesQuerySchema = z.object({
  licenses: z.array(CliLicenseFragmentSchema),
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const CreateLicenseMutationSchema = z.object({
  createLicense: CliLicenseFragmentSchema,
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const ApproveLicenseMutationSchema = z.object({
  license: CliLicenseFragmentSchema,
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const RejectLicenseMutationSchema = z.object({
  license: CliLicenseFragmentSchema,
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const RuntimesQuerySchema = z.object({
  runtimes: z.array(CliRuntimeFragmentSchema),
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const RegisterRuntimeMutationSchema = z.object({
  registerRuntime: CliRuntimeFragmentSchema,
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const SetRuntimeAllowedMutationSchema = z.object({
  setRuntimeAllowed: CliRuntimeFragmentSchema,
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const RegistryModelVersionsQuerySchema = z.object({
  modelVersions: z.array(CliModelVersionFragmentSchema),
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const ModelVersionQuerySchema = z.object({
  modelVersion: CliModelVersionFragmentSchema.nullable(),
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const CreateModelVersionMutationSchema = z.object({
  version: CliModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const VerifyModelVersionMutationSchema = z.object({
  version: CliModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const ApproveModelVersionMutationSchema = z.object({
  version: CliModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const DeprecateModelVersionMutationSchema = z.object({
  version: CliModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const ReinstateModelVersionMutationSchema = z.object({
  version: CliModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/cli/registry.graphql. */
export const RetireModelVersionMutationSchema = z.object({
  version: CliModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export const AliasesQuerySchema = z.object({
  aliases: z.array(CliAliasFragmentSchema),
});

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export const AliasQuerySchema = z.object({
  alias: CliAliasFragmentSchema.nullable(),
});

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export const CreateAliasMutationSchema = z.object({
  createAlias: CliAliasFragmentSchema,
});

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export const RolloutsQuerySchema = z.object({
  rollouts: z.array(CliRolloutFragmentSchema),
});

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export const RolloutQuerySchema = z.object({
  rollout: CliRolloutFragmentSchema.nullable(),
});

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export const StartRolloutMutationSchema = z.object({
  startRollout: z.object({
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    rollout: CliRolloutFragmentSchema,
  }),
});

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export const SignalRolloutMutationSchema = z.object({
  signalRollout: CliRolloutFragmentSchema,
});

/** From libs/sdk/graphql/cli/signing.graphql. */
export const TrustedSigningKeysQuerySchema = z.object({
  trustedSigningKeys: z.array(CliTrustedSigningKeyFragmentSchema),
});

/** From libs/sdk/graphql/cli/signing.graphql. */
export const RegisterSigningKeyMutationSchema = z.object({
  registerSigningKey: CliTrustedSigningKeyFragmentSchema,
});

/** From libs/sdk/graphql/cli/signing.graphql. */
export const RevokeSigningKeyMutationSchema = z.object({
  revokeSigningKey: CliTrustedSigningKeyFragmentSchema,
});

/** From libs/sdk/graphql/cli/signing.graphql. */
export const SetTenantUnsignedPolicyMutationSchema = z.object({
  setTenantUnsignedPolicy: z.object({
    tenantId: z.string(),
    allowUnsignedVersions: z.boolean(),
  }),
});

/** From libs/sdk/graphql/cli/status.graphql. */
export const HealthQuerySchema = z.object({
  health: z.object({
    status: z.string(),
    version: z.string(),
    commit: z.string(),
    checks: z.array(
      z.object({
        name: z.string(),
        status: z.string(),
        detail: z.string().nullable(),
        latencyMs: z.number().nullable(),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/cli/status.graphql. */
export const PingMutationSchema = z.object({
  ping: z.object({
    workflowId: z.string(),
    runId: z.string(),
    pingId: z.string(),
    message: z.string(),
    correlationId: z.string(),
    temporalUiUrl: z.string(),
    receiptHash: z.string(),
  }),
});

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export const TenantsQuerySchema = z.object({
  tenants: z.array(CliTenantFragmentSchema),
});

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export const TenantQuerySchema = z.object({
  tenant: CliTenantFragmentSchema.nullable(),
  gatewayKeys: z.array(CliGatewayKeyFragmentSchema),
});

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export const CreateTenantMutationSchema = z.object({
  createTenant: CliTenantFragmentSchema,
});

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export const UpdateTenantMutationSchema = z.object({
  updateTenant: CliTenantFragmentSchema,
});

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export const GatewayKeysQuerySchema = z.object({
  gatewayKeys: z.array(CliGatewayKeyFragmentSchema),
});

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export const CreateGatewayKeyMutationSchema = z.object({
  createGatewayKey: z.object({
    secret: z.string(),
    key: CliGatewayKeyFragmentSchema,
  }),
});

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export const RevokeGatewayKeyMutationSchema = z.object({
  revokeGatewayKey: CliGatewayKeyFragmentSchema,
});

/** From libs/sdk/graphql/console/access.graphql. */
export const ConsoleOperatorsQuerySchema = z.object({
  operators: z.array(ConsoleOperatorFragmentSchema),
});

/** From libs/sdk/graphql/console/access.graphql. */
export const ConsoleCreateOperatorMutationSchema = z.object({
  createOperator: ConsoleOperatorFragmentSchema,
});

/** From libs/sdk/graphql/console/access.graphql. */
export const ConsoleResetOperatorPasswordMutationSchema = z.object({
  resetOperatorPassword: ConsoleOperatorFragmentSchema,
});

/** From libs/sdk/graphql/console/access.graphql. */
export const ConsoleEndOperatorSessionsMutationSchema = z.object({
  endOperatorSessions: ConsoleOperatorFragmentSchema,
});

/** From libs/sdk/graphql/console/access.graphql. */
export const ConsoleDisableOperatorMutationSchema = z.object({
  disableOperator: ConsoleOperatorFragmentSchema,
});

/** From libs/sdk/graphql/console/access.graphql. */
export const ConsoleApiTokensQuerySchema = z.object({
  apiTokens: z.array(ConsoleApiTokenFragmentSchema),
});

/** From libs/sdk/graphql/console/access.graphql. */
export const ConsoleCreateApiTokenMutationSchema = z.object({
  createApiToken: z.object({
    token: z.string(),
    apiToken: ConsoleApiTokenFragmentSchema,
  }),
});

/** From libs/sdk/graphql/console/access.graphql. */
export const ConsoleRevokeApiTokenMutationSchema = z.object({
  revokeApiToken: ConsoleApiTokenFragmentSchema,
});

/** From libs/sdk/graphql/console/access.graphql. */
export const ConsoleBootstrapTokensQuerySchema = z.object({
  bootstrapTokens: z.array(
    z.object({
      id: z.string(),
      prefix: z.string(),
      nodeName: z.string().nullable(),
      autoApprove: z.boolean(),
      createdBy: z.string(),
      createdAt: z.string(),
      expiresAt: z.string(),
      usedAt: z.string().nullable(),
      revokedAt: z.string().nullable(),
    }),
  ),
});

/** From libs/sdk/graphql/console/access.graphql. */
export const ConsoleRevokeBootstrapTokenMutationSchema = z.object({
  revokeBootstrapToken: z.object({
    id: z.string(),
    prefix: z.string(),
    revokedAt: z.string().nullable(),
  }),
});

/** From libs/sdk/graphql/console/audit.graphql. */
export const ConsoleAuditEventsQuerySchema = z.object({
  auditEvents: z.object({
    nextBefore: z.number().int().nullable(),
    events: z.array(
      z.object({
        seq: z.number().int(),
        occurredAt: z.string(),
        actor: z.string(),
        action: z.string(),
        decision: z.string(),
        result: z.string(),
        correlationId: z.string(),
        workflowId: z.string().nullable(),
        temporalUiUrl: z.string().nullable(),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/console/audit.graphql. */
export const ConsoleAuditEventQuerySchema = z.object({
  auditEvent: z
    .object({
      seq: z.number().int(),
      id: z.string(),
      occurredAt: z.string(),
      actor: z.string(),
      action: z.string(),
      decision: z.string(),
      result: z.string(),
      correlationId: z.string(),
      workflowId: z.string().nullable(),
      temporalUiUrl: z.string().nullable(),
      evidenceJson: z.string(),
      hash: z.string(),
      prevHash: z.string(),
      chain: z
        .object({
          verified: z.boolean(),
          reason: z.string().nullable(),
        })
        .nullable(),
    })
    .nullable(),
});

/** From libs/sdk/graphql/console/audit.graphql. */
export const ConsoleAuditChainStatusQuerySchema = z.object({
  auditChainStatus: z.object({
    valid: z.boolean(),
    checked: z.number().int(),
    firstBrokenSeq: z.number().int().nullable(),
    reason: z.string().nullable(),
  }),
});

/** From libs/sdk/graphql/console/benchmarks.graphql. */
export const ConsoleBenchmarkChoicesQuerySchema = z.object({
  benchmarkProfiles: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      description: z.string().nullable(),
      concurrency: z.number().int(),
      inputTokens: z.number().int(),
      outputTokens: z.number().int(),
      durationSeconds: z.number().int().nullable(),
      requestCount: z.number().int().nullable(),
      maxErrorRate: z.number().nullable(),
      maxTtftP95Ms: z.number().nullable(),
      minTokensPerSecond: z.number().nullable(),
    }),
  ),
  modelVersions: z.array(
    z.object({
      id: z.string(),
      ref: z.string(),
      state: z.string(),
    }),
  ),
  deployments: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      modelRef: z.string(),
      state: z.string(),
    }),
  ),
});

/** From libs/sdk/graphql/console/benchmarks.graphql. */
export const ConsoleBenchmarkComparisonQuerySchema = z.object({
  benchmarkComparison: z.object({
    profile: z.string(),
    profileDigest: z.string(),
    baseline: z.string(),
    regressed: z.boolean(),
    thresholds: z.object({
      maxTtftP95Increase: z.number(),
      ttftSlackMs: z.number(),
      maxTokensPerSecondDrop: z.number(),
      maxErrorRateIncrease: z.number(),
      maxPassRateDrop: z.number(),
    }),
    entries: z.array(
      z.object({
        modelRef: z.string(),
        modelVersionId: z.string(),
        baseline: z.boolean(),
        passRate: z.number().nullable(),
        ttftP50Ms: z.number().nullable(),
        ttftP95Ms: z.number().nullable(),
        ttftP99Ms: z.number().nullable(),
        tokensPerSecond: z.number().nullable(),
        errorRate: z.number().nullable(),
        sameSuiteAsBaseline: z.boolean(),
        regressed: z.boolean(),
        regressions: z.array(
          z.object({
            metric: z.string(),
            baseline: z.number(),
            candidate: z.number(),
            reason: z.string(),
          }),
        ),
        run: z
          .object({
            id: z.string(),
            suite: z.string(),
            finishedAt: z.string().nullable(),
            workflowId: z.string(),
            temporalUiUrl: z.string(),
          })
          .nullable(),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/console/benchmarks.graphql. */
export const ConsoleBenchmarkRunsQuerySchema = z.object({
  benchmarkRuns: z.array(
    z.object({
      id: z.string(),
      deploymentId: z.string(),
      modelRef: z.string(),
      profile: z.string(),
      sloTtftP95Ms: z.number().nullable(),
      sloMaxErrorRate: z.number().nullable(),
      state: z.string(),
      kinds: z.array(z.string()),
      errorCode: z.string().nullable(),
      error: z.string().nullable(),
      createdAt: z.string(),
      finishedAt: z.string().nullable(),
      saturation: z
        .object({
          replicas: z.number().int(),
          brokeAtConcurrency: z.number().int().nullable(),
          sustainableConcurrency: z.number().int().nullable(),
          perReplicaRequestsPerSecond: z.number().nullable(),
          steps: z.array(
            z.object({
              concurrency: z.number().int(),
              requests: z.number().int(),
              errors: z.number().int(),
              errorRate: z.number(),
              ttftMs: z
                .object({
                  p50: z.number(),
                  p95: z.number(),
                  p99: z.number(),
                })
                .nullable(),
              latencyMs: z
                .object({
                  p50: z.number(),
                  p95: z.number(),
                  p99: z.number(),
                })
                .nullable(),
              requestsPerSecond: z.number(),
              tokensPerSecond: z.number(),
              queueDepth: z
                .object({
                  max: z.number(),
                  mean: z.number(),
                })
                .nullable(),
              durationMs: z.number(),
              breach: z.string().nullable(),
            }),
          ),
        })
        .nullable(),
      longStream: z
        .object({
          concurrency: z.number().int(),
          requests: z.number().int(),
          errors: z.number().int(),
          errorRate: z.number(),
          ttftMs: z
            .object({
              p50: z.number(),
              p95: z.number(),
              p99: z.number(),
            })
            .nullable(),
          latencyMs: z
            .object({
              p50: z.number(),
              p95: z.number(),
              p99: z.number(),
            })
            .nullable(),
          requestsPerSecond: z.number(),
          tokensPerSecond: z.number(),
          queueDepth: z
            .object({
              max: z.number(),
              mean: z.number(),
            })
            .nullable(),
          durationMs: z.number(),
          interTokenGapMs: z
            .object({
              p50: z.number(),
              p95: z.number(),
              p99: z.number(),
            })
            .nullable(),
          completionTokensP50: z.number().nullable(),
        })
        .nullable(),
      mixed: z
        .object({
          short: ConsoleLoadFiguresFragmentSchema,
          long: ConsoleLoadFiguresFragmentSchema,
        })
        .nullable(),
      coldStart: z
        .object({
          repeats: z.number().int(),
          failures: z.number().int(),
          deployToFirstTokenMs: z
            .object({
              p50: z.number(),
              p95: z.number(),
              p99: z.number(),
            })
            .nullable(),
          deployToReadyMs: z
            .object({
              p50: z.number(),
              p95: z.number(),
              p99: z.number(),
            })
            .nullable(),
          samples: z.array(
            z.object({
              deploymentId: z.string(),
              ok: z.boolean(),
              deployToReadyMs: z.number().nullable(),
              deployToFirstTokenMs: z.number().nullable(),
              error: z.string().nullable(),
            }),
          ),
        })
        .nullable(),
    }),
  ),
});

/** From libs/sdk/graphql/console/benchmarks.graphql. */
export const ConsoleStartBenchmarkRunMutationSchema = z.object({
  startBenchmarkRun: z.object({
    runId: z.string(),
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
  }),
});

/** From libs/sdk/graphql/console/benchmarks.graphql. */
export const ConsoleCapacityRecommendationsQuerySchema = z.object({
  capacityRecommendations: z.array(
    z.object({
      alias: z.string(),
      deploymentId: z.string().nullable(),
      benchmarkRunId: z.string().nullable(),
      targetTtftP95Ms: z.number().nullable(),
      perReplicaRequestsPerSecond: z.number().nullable(),
      peakRequestsPerSecond: z.number().nullable(),
      peakAt: z.string().nullable(),
      windowHours: z.number().int(),
      currentReplicas: z.number().int(),
      replicasNeeded: z.number().int().nullable(),
      capacityRequestsPerSecond: z.number().nullable(),
      headroom: z.number().nullable(),
      largestNode: z.string().nullable(),
      capacityAfterNodeLoss: z.number().nullable(),
      nodeLossMargin: z.number().nullable(),
      survivesNodeLoss: z.boolean().nullable(),
      missing: z.array(z.string()),
    }),
  ),
});

/** From libs/sdk/graphql/console/deployments.graphql. */
export const ConsoleDeploymentsQuerySchema = z.object({
  deployments: z.array(ConsoleDeploymentFragmentSchema),
});

/** From libs/sdk/graphql/console/deployments.graphql. */
export const ConsoleDeploymentQuerySchema = z.object({
  deployment: ConsoleDeploymentFragmentSchema.nullable(),
});

/** From libs/sdk/graphql/console/deployments.graphql. */
export const ConsoleDeployChoicesQuerySchema = z.object({
  modelVersions: z.array(
    z.object({
      id: z.string(),
      ref: z.string(),
      model: z.string(),
      version: z.string(),
      runtimeKind: z.string(),
      state: z.string(),
      createdAt: z.string(),
    }),
  ),
  nodes: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      lifecycle: z.string(),
      readiness: z.string(),
      cordoned: z.boolean(),
    }),
  ),
});

/** From libs/sdk/graphql/console/deployments.graphql. */
export const ConsoleCreateDeploymentMutationSchema = z.object({
  createDeployment: z.object({
    deploymentId: z.string(),
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    deployment: ConsoleDeploymentFragmentSchema.nullable(),
  }),
});

/** From libs/sdk/graphql/console/deployments.graphql. */
export const ConsoleStopDeploymentMutationSchema = z.object({
  stopDeployment: z.object({
    deploymentId: z.string(),
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    deployment: ConsoleDeploymentFragmentSchema.nullable(),
  }),
});

/** From libs/sdk/graphql/console/deployments.graphql. */
export const ConsoleRegisterModelVersionMutationSchema = z.object({
  registerModelVersion: z.object({
    id: z.string(),
    ref: z.string(),
    model: z.string(),
    version: z.string(),
    runtimeKind: z.string(),
    state: z.string(),
    createdAt: z.string(),
  }),
});

/** From libs/sdk/graphql/console/deployments.graphql. */
export const ConsolePlacementPlanQuerySchema = z.object({
  placementPlan: z.object({
    strategy: z.string(),
    replicas: z.number().int(),
    unplaced: z.number().int(),
    chosen: z.array(
      z.object({
        node: z.string(),
        reason: z.string(),
      }),
    ),
    rejected: z.array(
      z.object({
        node: z.string(),
        reasons: z.array(z.string()),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/console/deployments.graphql. */
export const ConsoleDeploymentRecoveriesQuerySchema = z.object({
  auditEvents: z.object({
    events: z.array(
      z.object({
        seq: z.number().int(),
        action: z.string(),
        occurredAt: z.string(),
        workflowId: z.string().nullable(),
        temporalUiUrl: z.string().nullable(),
        evidenceJson: z.string(),
      }),
    ),
  }),
  nodes: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
    }),
  ),
});

/** From libs/sdk/graphql/console/fleet-health.graphql. */
export const ConsoleHealingPlanQuerySchema = z.object({
  healingPlan: ConsoleHealingPlanFragmentSchema,
});

/** From libs/sdk/graphql/console/fleet-health.graphql. */
export const ConsoleHealMutationSchema = z.object({
  heal: z.object({
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    plan: ConsoleHealingPlanFragmentSchema,
  }),
});

/** From libs/sdk/graphql/console/fleet-health.graphql. */
export const ConsoleReconcileMutationSchema = z.object({
  reconcileFleet: ConsoleReconcileRunFragmentSchema,
});

/** From libs/sdk/graphql/console/live-events.graphql. */
export const ConsoleFleetEventsSubscriptionSchema = z.object({
  fleetEvents: z.object({
    kind: z.string(),
    seq: z.number().int().nullable(),
    action: z.string().nullable(),
    actor: z.string().nullable(),
    decision: z.string().nullable(),
    correlationId: z.string().nullable(),
    workflowId: z.string().nullable(),
    subject: z.string().nullable(),
    nodeId: z.string().nullable(),
    occurredAt: z.string(),
    dropped: z.number().int(),
  }),
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleModelsQuerySchema = z.object({
  models: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      displayName: z.string(),
      description: z.string().nullable(),
      createdAt: z.string(),
      versions: z.array(
        z.object({
          id: z.string(),
          ref: z.string(),
          model: z.string(),
          version: z.string(),
          runtimeKind: z.string(),
          state: z.string(),
          stateReason: z.string().nullable(),
          createdAt: z.string(),
          license: z.object({
            name: z.string(),
            approvalState: z.string(),
          }),
          evaluation: z
            .object({
              passed: z.boolean(),
              suite: z.string(),
            })
            .nullable(),
        }),
      ),
    }),
  ),
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleModelVersionQuerySchema = z.object({
  modelVersion: ConsoleModelVersionFragmentSchema.nullable(),
  evaluationRuns: z.array(ConsoleEvaluationRunFragmentSchema),
  aliases: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      currentRevision: z.number().int(),
      canaryWeight: z.number().int(),
      current: z
        .object({
          revision: z.number().int(),
          modelRef: z.string(),
        })
        .nullable(),
      activeRollout: z
        .object({
          id: z.string(),
          modelRef: z.string(),
          state: z.string(),
        })
        .nullable(),
    }),
  ),
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleEvaluationRunQuerySchema = z.object({
  evaluationRun: ConsoleEvaluationRunFragmentSchema.nullable(),
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleEvaluationChoicesQuerySchema = z.object({
  deployments: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      modelRef: z.string(),
      state: z.string(),
      readyReplicas: z.number().int(),
      desiredReplicas: z.number().int(),
    }),
  ),
  evaluationSuites: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      caseCount: z.number().int(),
      passThreshold: z.number(),
    }),
  ),
  benchmarkProfiles: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      concurrency: z.number().int(),
      durationSeconds: z.number().int().nullable(),
      requestCount: z.number().int().nullable(),
    }),
  ),
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleVersionChoicesQuerySchema = z.object({
  models: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
    }),
  ),
  licenses: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      approvalState: z.string(),
      allowedDataClasses: z.array(z.string()),
    }),
  ),
  runtimes: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      version: z.string(),
      kind: z.string(),
      allowed: z.boolean(),
    }),
  ),
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleStartEvaluationMutationSchema = z.object({
  startEvaluation: z.object({
    runId: z.string(),
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    run: ConsoleEvaluationRunFragmentSchema.nullable(),
  }),
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleCreateModelMutationSchema = z.object({
  createModel: z.object({
    id: z.string(),
    name: z.string(),
  }),
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleCreateModelVersionMutationSchema = z.object({
  createModelVersion: ConsoleModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleVerifyModelVersionMutationSchema = z.object({
  verifyModelVersion: ConsoleModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleApproveModelVersionMutationSchema = z.object({
  approveModelVersion: ConsoleModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleDeprecateModelVersionMutationSchema = z.object({
  deprecateModelVersion: ConsoleModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleReinstateModelVersionMutationSchema = z.object({
  reinstateModelVersion: ConsoleModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/console/models.graphql. */
export const ConsoleRetireModelVersionMutationSchema = z.object({
  retireModelVersion: ConsoleModelVersionFragmentSchema,
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleFleetNodesQuerySchema = z.object({
  nodes: z.array(ConsoleFleetNodeFragmentSchema),
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleFleetNodeQuerySchema = z.object({
  node: ConsoleFleetNodeFragmentSchema.nullable(),
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleNodeGpuSeriesQuerySchema = z.object({
  node: z
    .object({
      id: z.string(),
      gpuSeries: z.array(
        z.object({
          uuid: z.string(),
          index: z.number().int().nullable(),
          points: z.array(
            z.object({
              at: z.string(),
              utilizationPercent: z.number().nullable(),
              memoryUsedBytes: z.number().nullable(),
              memoryTotalBytes: z.number().nullable(),
              temperatureCelsius: z.number().nullable(),
              powerWatts: z.number().nullable(),
            }),
          ),
        }),
      ),
    })
    .nullable(),
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleCreateBootstrapTokenMutationSchema = z.object({
  createBootstrapToken: z.object({
    token: z.string(),
    bootstrapToken: z.object({
      id: z.string(),
      prefix: z.string(),
      nodeName: z.string().nullable(),
      labels: z.array(
        z.object({
          key: z.string(),
          value: z.string(),
        }),
      ),
      autoApprove: z.boolean(),
      createdAt: z.string(),
      createdBy: z.string(),
      expiresAt: z.string(),
      usedAt: z.string().nullable(),
      usedByNodeId: z.string().nullable(),
      revokedAt: z.string().nullable(),
    }),
    controllerUrl: z.string(),
    controllerKeyFingerprint: z.string(),
    agentInvocation: z.string(),
  }),
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleApproveNodeMutationSchema = z.object({
  approveNode: z.object({
    node: ConsoleFleetNodeFragmentSchema,
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    receiptHash: z.string().nullable(),
  }),
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleCordonNodeMutationSchema = z.object({
  cordonNode: ConsoleFleetNodeFragmentSchema,
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleUncordonNodeMutationSchema = z.object({
  uncordonNode: ConsoleFleetNodeFragmentSchema,
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleDrainNodeMutationSchema = z.object({
  drainNode: z.object({
    node: ConsoleFleetNodeFragmentSchema,
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    replicasAtStart: z.number().int(),
    inFlightAtStart: z.number().int(),
    inFlightAtTimeout: z.number().int(),
    receiptHash: z.string(),
  }),
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleRotateNodeCredentialMutationSchema = z.object({
  rotateNodeCredential: z.object({
    node: ConsoleFleetNodeFragmentSchema,
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    receiptHash: z.string().nullable(),
  }),
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleSetNodeLabelsMutationSchema = z.object({
  setNodeLabels: ConsoleFleetNodeFragmentSchema,
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleSetNodeTaintsMutationSchema = z.object({
  setNodeTaints: ConsoleFleetNodeFragmentSchema,
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleRejectNodeMutationSchema = z.object({
  rejectNode: z.object({
    node: ConsoleFleetNodeFragmentSchema,
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    receiptHash: z.string().nullable(),
  }),
});

/** From libs/sdk/graphql/console/nodes.graphql. */
export const ConsoleNodeRecoveriesQuerySchema = z.object({
  auditEvents: z.object({
    events: z.array(
      z.object({
        seq: z.number().int(),
        action: z.string(),
        occurredAt: z.string(),
        workflowId: z.string().nullable(),
        temporalUiUrl: z.string().nullable(),
        evidenceJson: z.string(),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/console/overview.graphql. */
export const ConsoleSystemHealthQuerySchema = z.object({
  health: z.object({
    status: z.string(),
    version: z.string(),
    commit: z.string(),
    checks: z.array(
      z.object({
        name: z.string(),
        status: z.string(),
        detail: z.string().nullable(),
        latencyMs: z.number().nullable(),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/console/overview.graphql. */
export const ConsoleRecentSystemChecksQuerySchema = z.object({
  recentPings: z.array(
    z.object({
      id: z.string(),
      workflowId: z.string(),
      message: z.string(),
      actor: z.string(),
      correlationId: z.string(),
      createdAt: z.string(),
      temporalUiUrl: z.string(),
    }),
  ),
});

/** From libs/sdk/graphql/console/overview.graphql. */
export const ConsoleFleetCapacityQuerySchema = z.object({
  nodes: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      lifecycle: z.string(),
      readiness: z.string(),
      heartbeatAgeSeconds: z.number().nullable(),
      gpus: z.array(
        z.object({
          memoryModel: z.string(),
          memorySource: z.string(),
          totalMemoryBytes: z.number().nullable(),
          freeMemoryBytes: z.number().nullable(),
        }),
      ),
    }),
  ),
});

/** From libs/sdk/graphql/console/overview.graphql. */
export const ConsoleOverviewTrafficQuerySchema = z.object({
  traffic: z.object({
    bucketSeconds: z.number().int(),
    inFlightNow: z.number().int(),
    buckets: z.array(
      z.object({
        start: z.string(),
        requests: z.number().int(),
        requestsPerSecond: z.number(),
      }),
    ),
    totals: z.object({
      requests: z.number().int(),
      errors: z.number().int(),
    }),
  }),
});

/** From libs/sdk/graphql/console/overview.graphql. */
export const ConsoleOverviewDeploymentsQuerySchema = z.object({
  deployments: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      modelRef: z.string(),
      state: z.string(),
      readyReplicas: z.number().int(),
      desiredReplicas: z.number().int(),
    }),
  ),
});

/** From libs/sdk/graphql/console/overview.graphql. */
export const ConsoleWorkflowAlertsQuerySchema = z.object({
  workflowAlerts: z.array(
    z.object({
      workflowId: z.string(),
      runId: z.string(),
      workflowType: z.string(),
      status: z.string(),
      closedAt: z.string().nullable(),
      temporalUiUrl: z.string(),
    }),
  ),
});

/** From libs/sdk/graphql/console/overview.graphql. */
export const ConsoleRecentChangesQuerySchema = z.object({
  auditEvents: z.object({
    events: z.array(
      z.object({
        seq: z.number().int(),
        occurredAt: z.string(),
        actor: z.string(),
        action: z.string(),
        decision: z.string(),
        result: z.string(),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/console/overview.graphql. */
export const ConsoleTryItQuerySchema = z.object({
  gatewayEndpoint: z.string(),
  alias: z
    .object({
      currentRevision: z.number().int(),
    })
    .nullable(),
  tenant: z
    .object({
      id: z.string(),
    })
    .nullable(),
});

/** From libs/sdk/graphql/console/policies.graphql. */
export const ConsolePoliciesQuerySchema = z.object({
  dataPolicies: z.array(ConsoleDataPolicyFragmentSchema),
  runtimes: z.array(ConsoleRuntimeFragmentSchema),
  trustedSigningKeys: z.array(ConsoleSigningKeyFragmentSchema),
});

/** From libs/sdk/graphql/console/policies.graphql. */
export const ConsoleRegisterSigningKeyMutationSchema = z.object({
  registerSigningKey: ConsoleSigningKeyFragmentSchema,
});

/** From libs/sdk/graphql/console/policies.graphql. */
export const ConsoleRevokeSigningKeyMutationSchema = z.object({
  revokeSigningKey: ConsoleSigningKeyFragmentSchema,
});

/** From libs/sdk/graphql/console/policies.graphql. */
export const ConsoleTenantSigningPolicyQuerySchema = z.object({
  tenantSigningPolicy: z
    .object({
      tenantId: z.string(),
      allowUnsignedVersions: z.boolean(),
    })
    .nullable(),
});

/** From libs/sdk/graphql/console/policies.graphql. */
export const ConsoleSetTenantUnsignedPolicyMutationSchema = z.object({
  setTenantUnsignedPolicy: z.object({
    tenantId: z.string(),
    allowUnsignedVersions: z.boolean(),
  }),
});

/** From libs/sdk/graphql/console/policies.graphql. */
export const ConsoleSetDataPolicyMutationSchema = z.object({
  setDataPolicy: ConsoleDataPolicyFragmentSchema,
});

/** From libs/sdk/graphql/console/policies.graphql. */
export const ConsoleSetRuntimeAllowedMutationSchema = z.object({
  setRuntimeAllowed: ConsoleRuntimeFragmentSchema,
});

/** From libs/sdk/graphql/console/registry.graphql. */
export const ConsoleRegistryQuerySchema = z.object({
  licenses: z.array(ConsoleRegistryLicenseFragmentSchema),
  runtimes: z.array(ConsoleRegistryRuntimeFragmentSchema),
  evaluationSuites: z.array(ConsoleRegistrySuiteFragmentSchema),
  benchmarkProfiles: z.array(ConsoleRegistryProfileFragmentSchema),
  models: z.array(
    z.object({
      id: z.string(),
      versions: z.array(
        z.object({
          id: z.string(),
          ref: z.string(),
          state: z.string(),
          license: z.object({
            name: z.string(),
          }),
          runtime: z.object({
            id: z.string(),
          }),
        }),
      ),
    }),
  ),
});

/** From libs/sdk/graphql/console/registry.graphql. */
export const ConsoleCreateLicenseMutationSchema = z.object({
  createLicense: ConsoleRegistryLicenseFragmentSchema,
});

/** From libs/sdk/graphql/console/registry.graphql. */
export const ConsoleApproveLicenseMutationSchema = z.object({
  license: ConsoleRegistryLicenseFragmentSchema,
});

/** From libs/sdk/graphql/console/registry.graphql. */
export const ConsoleRejectLicenseMutationSchema = z.object({
  license: ConsoleRegistryLicenseFragmentSchema,
});

/** From libs/sdk/graphql/console/registry.graphql. */
export const ConsoleRegisterRuntimeMutationSchema = z.object({
  registerRuntime: ConsoleRegistryRuntimeFragmentSchema,
});

/** From libs/sdk/graphql/console/registry.graphql. */
export const ConsoleCreateEvaluationSuiteMutationSchema = z.object({
  createEvaluationSuite: ConsoleRegistrySuiteFragmentSchema,
});

/** From libs/sdk/graphql/console/registry.graphql. */
export const ConsoleCreateBenchmarkProfileMutationSchema = z.object({
  createBenchmarkProfile: ConsoleRegistryProfileFragmentSchema,
});

/** From libs/sdk/graphql/console/requests.graphql. */
export const ConsoleRequestsTrafficQuerySchema = z.object({
  traffic: z.object({
    windowStart: z.string(),
    windowEnd: z.string(),
    bucketSeconds: z.number().int(),
    inFlightNow: z.number().int(),
    queuedNow: z.number().int(),
    buckets: z.array(
      z.object({
        start: z.string(),
        requests: z.number().int(),
        errors: z.number().int(),
        requestsPerSecond: z.number(),
        meanConcurrency: z.number(),
        latencyP50Ms: z.number().nullable(),
        latencyP95Ms: z.number().nullable(),
        latencyP99Ms: z.number().nullable(),
        ttftP50Ms: z.number().nullable(),
        ttftP95Ms: z.number().nullable(),
        completionTokens: z.number().int(),
        promptTokens: z.number().int(),
        rateLimited: z.number().int(),
      }),
    ),
    totals: z.object({
      start: z.string(),
      requests: z.number().int(),
      errors: z.number().int(),
      requestsPerSecond: z.number(),
      meanConcurrency: z.number(),
      latencyP50Ms: z.number().nullable(),
      latencyP95Ms: z.number().nullable(),
      latencyP99Ms: z.number().nullable(),
      ttftP50Ms: z.number().nullable(),
      ttftP95Ms: z.number().nullable(),
      completionTokens: z.number().int(),
      promptTokens: z.number().int(),
      rateLimited: z.number().int(),
    }),
    deployments: z.array(
      z.object({
        deploymentId: z.string().nullable(),
        deploymentName: z.string().nullable(),
        modelRef: z.string().nullable(),
        inFlightNow: z.number().int(),
        queuedNow: z.number().int(),
        totals: z.object({
          start: z.string(),
          requests: z.number().int(),
          errors: z.number().int(),
          requestsPerSecond: z.number(),
          meanConcurrency: z.number(),
          latencyP50Ms: z.number().nullable(),
          latencyP95Ms: z.number().nullable(),
          latencyP99Ms: z.number().nullable(),
          ttftP50Ms: z.number().nullable(),
          ttftP95Ms: z.number().nullable(),
          completionTokens: z.number().int(),
          promptTokens: z.number().int(),
          rateLimited: z.number().int(),
        }),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/console/requests.graphql. */
export const ConsoleRequestRecordsQuerySchema = z.object({
  requestRecords: z.object({
    nextBefore: z.string().nullable(),
    items: z.array(
      z.object({
        id: z.string(),
        requestId: z.string(),
        correlationId: z.string(),
        receivedAt: z.string(),
        finishedAt: z.string(),
        kind: z.string(),
        dialect: z.string(),
        requestedModel: z.string(),
        modelRef: z.string().nullable(),
        deploymentId: z.string().nullable(),
        deploymentName: z.string().nullable(),
        stream: z.boolean(),
        outcome: z.string(),
        errorCode: z.string().nullable(),
        httpStatus: z.number().int(),
        timeToFirstTokenMs: z.number().nullable(),
        durationMs: z.number(),
        promptTokens: z.number().int().nullable(),
        completionTokens: z.number().int().nullable(),
        tenantId: z.string().nullable(),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/console/requests.graphql. */
export const ConsoleRequestsDeploymentsQuerySchema = z.object({
  deployments: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      modelRef: z.string(),
      state: z.string(),
      readyReplicas: z.number().int(),
      desiredReplicas: z.number().int(),
    }),
  ),
});

/** From libs/sdk/graphql/console/rollouts.graphql. */
export const ConsoleAliasesQuerySchema = z.object({
  aliases: z.array(ConsoleAliasFragmentSchema),
});

/** From libs/sdk/graphql/console/rollouts.graphql. */
export const ConsoleAliasQuerySchema = z.object({
  alias: z
    .object({
      id: z.string(),
      name: z.string(),
      description: z.string().nullable(),
      dataClass: z.string(),
      currentRevision: z.number().int(),
      canaryWeight: z.number().int(),
      canaryDeploymentId: z.string().nullable(),
      createdBy: z.string(),
      createdAt: z.string(),
      updatedAt: z.string(),
      current: z
        .object({
          revision: z.number().int(),
          modelRef: z.string(),
          modelVersionId: z.string(),
          deploymentId: z.string(),
          deploymentName: z.string().nullable(),
          reason: z.string(),
          restoredFrom: z.number().int().nullable(),
          rolloutId: z.string().nullable(),
          createdBy: z.string(),
          createdAt: z.string(),
        })
        .nullable(),
      activeRollout: ConsoleRolloutFragmentSchema.nullable(),
      revisions: z.array(
        z.object({
          revision: z.number().int(),
          modelRef: z.string(),
          modelVersionId: z.string(),
          deploymentId: z.string(),
          deploymentName: z.string().nullable(),
          reason: z.string(),
          restoredFrom: z.number().int().nullable(),
          rolloutId: z.string().nullable(),
          createdBy: z.string(),
          createdAt: z.string(),
        }),
      ),
    })
    .nullable(),
  rollouts: z.array(ConsoleRolloutFragmentSchema),
});

/** From libs/sdk/graphql/console/rollouts.graphql. */
export const ConsoleRolloutQuerySchema = z.object({
  rollout: z
    .object({
      id: z.string(),
      alias: z.string(),
      modelRef: z.string(),
      baseRevision: z.number().int(),
      state: z.string(),
      actions: z.array(
        z.object({
          action: z.string(),
          allowed: z.boolean(),
          reason: z.string().nullable(),
        }),
      ),
      stateReason: z.string().nullable(),
      refusalCode: z.string().nullable(),
      steps: z.array(z.number().int()),
      currentStep: z.number().int(),
      currentWeight: z.number().int(),
      analysisWindowSeconds: z.number().int(),
      samplesPerStep: z.number().int(),
      maxWindowsPerStep: z.number().int(),
      bakeSeconds: z.number().int(),
      replicas: z.number().int(),
      maxErrorRateIncrease: z.number(),
      maxP95LatencyRatio: z.number(),
      p95SlackMs: z.number(),
      maxEvaluationScoreDrop: z.number(),
      canaryDeploymentId: z.string().nullable(),
      workflowId: z.string(),
      temporalUiUrl: z.string(),
      createdBy: z.string(),
      createdAt: z.string(),
      updatedAt: z.string(),
      finishedAt: z.string().nullable(),
      analyses: z.array(
        z.object({
          step: z.number().int(),
          weight: z.number().int(),
          window: z.number().int(),
          verdict: z.string(),
          reasons: z.array(z.string()),
          canaryRequests: z.number().int(),
          canaryErrors: z.number().int(),
          canaryErrorRate: z.number(),
          canaryP95Ms: z.number().nullable(),
          stableRequests: z.number().int().nullable(),
          stableErrorRate: z.number().nullable(),
          stableP95Ms: z.number().nullable(),
          canaryEvaluationScore: z.number().nullable(),
          stableEvaluationScore: z.number().nullable(),
        }),
      ),
      receipts: z.array(
        z.object({
          seq: z.number().int(),
          action: z.string(),
          decision: z.string(),
          result: z.string(),
          evidenceJson: z.string(),
          hash: z.string(),
          occurredAt: z.string(),
          actor: z.string(),
        }),
      ),
    })
    .nullable(),
  workflowAlerts: z.array(
    z.object({
      workflowId: z.string(),
      status: z.string(),
      closedAt: z.string().nullable(),
      temporalUiUrl: z.string(),
    }),
  ),
});

/** From libs/sdk/graphql/console/rollouts.graphql. */
export const ConsoleRolloutChoicesQuerySchema = z.object({
  aliases: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      dataClass: z.string(),
      currentRevision: z.number().int(),
      current: z
        .object({
          revision: z.number().int(),
          modelRef: z.string(),
          modelVersionId: z.string(),
          deploymentId: z.string(),
          deploymentName: z.string().nullable(),
          reason: z.string(),
          restoredFrom: z.number().int().nullable(),
          rolloutId: z.string().nullable(),
          createdBy: z.string(),
          createdAt: z.string(),
        })
        .nullable(),
      activeRollout: ConsoleRolloutFragmentSchema.nullable(),
    }),
  ),
  modelVersions: z.array(
    z.object({
      id: z.string(),
      ref: z.string(),
      model: z.string(),
      version: z.string(),
      runtimeKind: z.string(),
    }),
  ),
});

/** From libs/sdk/graphql/console/rollouts.graphql. */
export const ConsoleCreateAliasMutationSchema = z.object({
  createAlias: ConsoleAliasFragmentSchema,
});

/** From libs/sdk/graphql/console/rollouts.graphql. */
export const ConsoleStartRolloutMutationSchema = z.object({
  startRollout: z.object({
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    correlationId: z.string(),
    rollout: z.object({
      id: z.string(),
      alias: z.string(),
      modelRef: z.string(),
      baseRevision: z.number().int(),
      state: z.string(),
      actions: z.array(
        z.object({
          action: z.string(),
          allowed: z.boolean(),
          reason: z.string().nullable(),
        }),
      ),
      stateReason: z.string().nullable(),
      refusalCode: z.string().nullable(),
      steps: z.array(z.number().int()),
      currentStep: z.number().int(),
      currentWeight: z.number().int(),
      analysisWindowSeconds: z.number().int(),
      samplesPerStep: z.number().int(),
      maxWindowsPerStep: z.number().int(),
      bakeSeconds: z.number().int(),
      replicas: z.number().int(),
      maxErrorRateIncrease: z.number(),
      maxP95LatencyRatio: z.number(),
      p95SlackMs: z.number(),
      maxEvaluationScoreDrop: z.number(),
      canaryDeploymentId: z.string().nullable(),
      workflowId: z.string(),
      temporalUiUrl: z.string(),
      createdBy: z.string(),
      createdAt: z.string(),
      updatedAt: z.string(),
      finishedAt: z.string().nullable(),
      analyses: z.array(
        z.object({
          step: z.number().int(),
          weight: z.number().int(),
          window: z.number().int(),
          verdict: z.string(),
          reasons: z.array(z.string()),
          canaryRequests: z.number().int(),
          canaryErrors: z.number().int(),
          canaryErrorRate: z.number(),
          canaryP95Ms: z.number().nullable(),
          stableRequests: z.number().int().nullable(),
          stableErrorRate: z.number().nullable(),
          stableP95Ms: z.number().nullable(),
          canaryEvaluationScore: z.number().nullable(),
          stableEvaluationScore: z.number().nullable(),
        }),
      ),
      receipts: z.array(
        z.object({
          seq: z.number().int(),
          action: z.string(),
          decision: z.string(),
          result: z.string(),
          evidenceJson: z.string(),
          hash: z.string(),
          occurredAt: z.string(),
          actor: z.string(),
        }),
      ),
    }),
  }),
});

/** From libs/sdk/graphql/console/rollouts.graphql. */
export const ConsoleSignalRolloutMutationSchema = z.object({
  signalRollout: z.object({
    id: z.string(),
    alias: z.string(),
    modelRef: z.string(),
    baseRevision: z.number().int(),
    state: z.string(),
    actions: z.array(
      z.object({
        action: z.string(),
        allowed: z.boolean(),
        reason: z.string().nullable(),
      }),
    ),
    stateReason: z.string().nullable(),
    refusalCode: z.string().nullable(),
    steps: z.array(z.number().int()),
    currentStep: z.number().int(),
    currentWeight: z.number().int(),
    analysisWindowSeconds: z.number().int(),
    samplesPerStep: z.number().int(),
    maxWindowsPerStep: z.number().int(),
    bakeSeconds: z.number().int(),
    replicas: z.number().int(),
    maxErrorRateIncrease: z.number(),
    maxP95LatencyRatio: z.number(),
    p95SlackMs: z.number(),
    maxEvaluationScoreDrop: z.number(),
    canaryDeploymentId: z.string().nullable(),
    workflowId: z.string(),
    temporalUiUrl: z.string(),
    createdBy: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    finishedAt: z.string().nullable(),
    analyses: z.array(
      z.object({
        step: z.number().int(),
        weight: z.number().int(),
        window: z.number().int(),
        verdict: z.string(),
        reasons: z.array(z.string()),
        canaryRequests: z.number().int(),
        canaryErrors: z.number().int(),
        canaryErrorRate: z.number(),
        canaryP95Ms: z.number().nullable(),
        stableRequests: z.number().int().nullable(),
        stableErrorRate: z.number().nullable(),
        stableP95Ms: z.number().nullable(),
        canaryEvaluationScore: z.number().nullable(),
        stableEvaluationScore: z.number().nullable(),
      }),
    ),
    receipts: z.array(
      z.object({
        seq: z.number().int(),
        action: z.string(),
        decision: z.string(),
        result: z.string(),
        evidenceJson: z.string(),
        hash: z.string(),
        occurredAt: z.string(),
        actor: z.string(),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/console/search.graphql. */
export const ConsoleSearchQuerySchema = z.object({
  search: z.array(
    z.object({
      kind: z.string(),
      title: z.string(),
      detail: z.string().nullable(),
      route: z.string(),
      temporalUiUrl: z.string().nullable(),
    }),
  ),
});

/** From libs/sdk/graphql/console/session.graphql. */
export const ConsoleLoginMutationSchema = z.object({
  login: z.object({
    accessToken: z.string(),
    expiresAt: z.string(),
    operator: z.object({
      id: z.string(),
      username: z.string(),
      role: z.string(),
    }),
  }),
});

/** From libs/sdk/graphql/console/session.graphql. */
export const ConsoleLogoutMutationSchema = z.object({
  logout: z.boolean(),
});

/** From libs/sdk/graphql/console/session.graphql. */
export const ConsoleChangePasswordMutationSchema = z.object({
  changePassword: z.object({
    accessToken: z.string(),
    expiresAt: z.string(),
    operator: z.object({
      id: z.string(),
      username: z.string(),
      role: z.string(),
    }),
  }),
});

/** From libs/sdk/graphql/console/tenants.graphql. */
export const ConsoleTenantsQuerySchema = z.object({
  tenants: z.array(ConsoleTenantFragmentSchema),
});

/** From libs/sdk/graphql/console/tenants.graphql. */
export const ConsoleTenantQuerySchema = z.object({
  tenant: ConsoleTenantFragmentSchema.nullable(),
});

/** From libs/sdk/graphql/console/tenants.graphql. */
export const ConsoleGatewayKeysQuerySchema = z.object({
  gatewayKeys: z.array(ConsoleGatewayKeyFragmentSchema),
});

/** From libs/sdk/graphql/console/tenants.graphql. */
export const ConsoleAliasNamesQuerySchema = z.object({
  aliases: z.array(
    z.object({
      name: z.string(),
    }),
  ),
});

/** From libs/sdk/graphql/console/tenants.graphql. */
export const ConsoleCreateTenantMutationSchema = z.object({
  createTenant: ConsoleTenantFragmentSchema,
});

/** From libs/sdk/graphql/console/tenants.graphql. */
export const ConsoleUpdateTenantMutationSchema = z.object({
  updateTenant: ConsoleTenantFragmentSchema,
});

/** From libs/sdk/graphql/console/tenants.graphql. */
export const ConsoleCreateGatewayKeyMutationSchema = z.object({
  createGatewayKey: z.object({
    secret: z.string(),
    key: ConsoleGatewayKeyFragmentSchema,
  }),
});

/** From libs/sdk/graphql/console/tenants.graphql. */
export const ConsoleRevokeGatewayKeyMutationSchema = z.object({
  revokeGatewayKey: ConsoleGatewayKeyFragmentSchema,
});

/** From libs/sdk/graphql/console/tenants.graphql. */
export const ConsoleTenantUsageQuerySchema = z.object({
  traffic: z.object({
    windowStart: z.string(),
    windowEnd: z.string(),
    bucketSeconds: z.number().int(),
    buckets: z.array(
      z.object({
        start: z.string(),
        requests: z.number().int(),
        errors: z.number().int(),
        rateLimited: z.number().int(),
        promptTokens: z.number().int(),
        completionTokens: z.number().int(),
      }),
    ),
    totals: z.object({
      requests: z.number().int(),
      errors: z.number().int(),
      rateLimited: z.number().int(),
      promptTokens: z.number().int(),
      completionTokens: z.number().int(),
    }),
    tenants: z.array(
      z.object({
        tenantId: z.string().nullable(),
        topModels: z.array(
          z.object({
            requestedModel: z.string(),
            requests: z.number().int(),
            errors: z.number().int(),
          }),
        ),
      }),
    ),
  }),
});

/** From libs/sdk/graphql/console/tenants.graphql. */
export const ConsolePayloadCapturesQuerySchema = z.object({
  payloadCaptures: z.array(
    z.object({
      id: z.string(),
      requestId: z.string(),
      correlationId: z.string(),
      modelRef: z.string().nullable(),
      purpose: z.string(),
      requestBytes: z.number().int(),
      responseBytes: z.number().int(),
      capturedAt: z.string(),
      expiresAt: z.string(),
    }),
  ),
});

/** From libs/sdk/graphql/console/tenants.graphql. */
export const ConsolePurgePayloadCapturesMutationSchema = z.object({
  purgePayloadCaptures: z.object({
    tenantId: z.string(),
    deleted: z.number().int(),
    receiptHashes: z.array(z.string()),
    workflowId: z.string(),
    temporalUiUrl: z.string(),
  }),
});

/** From libs/sdk/graphql/sdk/operator.graphql. */
export const SdkModelsQuerySchema = z.object({
  models: z.array(
    z.object({
      name: z.string(),
      displayName: z.string(),
      description: z.string().nullable(),
      versions: z.array(
        z.object({
          ref: z.string(),
          state: z.string(),
          runtimeKind: z.string(),
          contextLength: z.number().int().nullable(),
        }),
      ),
    }),
  ),
});

/** From libs/sdk/graphql/sdk/operator.graphql. */
export const SdkAliasesQuerySchema = z.object({
  aliases: z.array(
    z.object({
      name: z.string(),
      dataClass: z.string(),
      description: z.string().nullable(),
      currentRevision: z.number().int(),
      current: z
        .object({
          revision: z.number().int(),
          modelRef: z.string(),
          deploymentName: z.string().nullable(),
        })
        .nullable(),
    }),
  ),
});

/** From libs/sdk/graphql/sdk/operator.graphql. */
export const SdkDeploymentsQuerySchema = z.object({
  deployments: z.array(
    z.object({
      name: z.string(),
      modelRef: z.string(),
      state: z.string(),
      desiredReplicas: z.number().int(),
      readyReplicas: z.number().int(),
      purpose: z.string(),
    }),
  ),
});
