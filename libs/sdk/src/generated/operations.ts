// Generated from libs/sdk/graphql/**/*.graphql and apps/api/schema.gql by scripts/generate-sdk.mjs; do not edit.
// Regenerate with `npm run sdk:generate`. No runtime imports: the console bundles this file.

import type * as Schema from './graphql';

/**
 * A GraphQL document that carries its result and variables types, the same idea as
 * graphql-codegen's `TypedDocumentNode`: a client's return type follows from the document
 * passed in. The phantom `types` member exists only in the type system.
 */
export interface TypedDocument<TResult, TVariables> {
  readonly operationName: string;
  readonly document: string;
  readonly types?: { readonly data: TResult; readonly variables: TVariables };
}

/** Fragment from libs/sdk/graphql/cli/controller-keys.graphql. */
export type CliControllerRingKeyFragment = {
  readonly keyId: string;
  readonly sshFingerprint: string;
  readonly publicKey: string;
  readonly state: string;
  readonly rotationId: string | null;
  readonly acceptUntil: string | null;
  readonly stateChangedAt: string | null;
};

/** Fragment from libs/sdk/graphql/cli/data-policy.graphql. */
export type CliDataPolicyFragment = {
  readonly tenantId: string;
  readonly dataClass: string;
  readonly retentionMode: string;
  readonly retentionDays: number | null;
  readonly evaluationCaptureConsent: boolean;
  readonly configured: boolean;
  readonly updatedBy: string;
  readonly updatedAt: string;
};

/** Fragment from libs/sdk/graphql/cli/evaluation.graphql. */
export type CliEvaluationRunFragment = {
  readonly id: string;
  readonly modelRef: string;
  readonly deploymentId: string;
  readonly suite: string;
  readonly profile: string | null;
  readonly state: string;
  readonly passed: boolean | null;
  readonly reasons: readonly string[];
  readonly errorCode: string | null;
  readonly workflowId: string;
  readonly temporalUiUrl: string;
  readonly createdAt: string;
  readonly finishedAt: string | null;
  readonly scores: {
    readonly passRate: number;
    readonly passedCases: number;
    readonly totalCases: number;
    readonly passThreshold: number;
    readonly cases: readonly {
      readonly caseId: string;
      readonly grader: Schema.GraderKind;
      readonly passed: boolean;
      readonly reason: string | null;
      readonly errorCode: string | null;
    }[];
  } | null;
  readonly metrics: {
    readonly requests: number;
    readonly errors: number;
    readonly errorRate: number;
    readonly ttftMs: {
      readonly p50: number;
      readonly p95: number;
      readonly p99: number;
    } | null;
    readonly tokensPerSecond: number;
    readonly completionTokens: number;
    readonly durationMs: number;
    readonly concurrency: number;
  } | null;
};

/** Fragment from libs/sdk/graphql/cli/fleet.graphql. */
export type CliBootstrapTokenFragment = {
  readonly id: string;
  readonly prefix: string;
  readonly nodeName: string | null;
  readonly labels: readonly {
    readonly key: string;
    readonly value: string;
  }[];
  readonly autoApprove: boolean;
  readonly createdBy: string;
  readonly createdAt: Schema.DateTimeString;
  readonly expiresAt: Schema.DateTimeString;
  readonly usedAt: Schema.DateTimeString | null;
  readonly usedByNodeId: string | null;
  readonly revokedAt: Schema.DateTimeString | null;
};

/** Fragment from libs/sdk/graphql/cli/fleet.graphql. */
export type CliDeploymentFragment = {
  readonly id: string;
  readonly name: string;
  readonly modelRef: string;
  readonly purpose: string;
  readonly state: string;
  readonly stateReason: string | null;
  readonly desiredReplicas: number;
  readonly readyReplicas: number;
  readonly generation: number;
  readonly observedGeneration: number;
  readonly workflowId: string;
  readonly temporalUiUrl: string;
  readonly createdAt: Schema.DateTimeString;
  readonly createdBy: string;
  readonly updatedAt: Schema.DateTimeString;
  readonly assignments: readonly {
    readonly id: string;
    readonly deploymentId: string;
    readonly nodeId: string;
    readonly nodeName: string;
    readonly intent: string;
    readonly generation: number;
    readonly ackedGeneration: number | null;
    readonly observedGeneration: number | null;
    readonly observedState: string | null;
    readonly observedAt: Schema.DateTimeString | null;
    readonly inFlight: number | null;
    readonly endpointPort: number | null;
    readonly leaseExpiresAt: Schema.DateTimeString;
    readonly message: string | null;
  }[];
};

/** Fragment from libs/sdk/graphql/cli/fleet.graphql. */
export type CliFleetNodeFragment = {
  readonly id: string;
  readonly name: string;
  readonly lifecycle: string;
  readonly readiness: string;
  readonly cordoned: boolean;
  readonly heartbeatAgeSeconds: number | null;
  readonly address: string;
  readonly sshPort: number;
  readonly agentVersion: string;
  readonly agentProtocol: number;
  readonly agentOutdated: boolean;
  readonly agentOutdatedReason: string | null;
  readonly architecture: string;
  readonly cpuCores: number;
  readonly systemMemoryBytes: number;
  readonly hostKeyFingerprint: string;
  readonly keyId: string;
  readonly nextKeyId: string | null;
  readonly credentialSerial: number;
  readonly credentialExpiresAt: Schema.DateTimeString | null;
  readonly leaseRenewedAt: Schema.DateTimeString | null;
  readonly leaseExpiresAt: Schema.DateTimeString | null;
  readonly enrolledAt: Schema.DateTimeString;
  readonly updatedAt: Schema.DateTimeString;
  readonly enrollWorkflowId: string;
  readonly temporalUiUrl: string;
  readonly labels: readonly {
    readonly key: string;
    readonly value: string;
  }[];
  readonly taints: readonly {
    readonly key: string;
    readonly value: string;
    readonly effect: string;
  }[];
  readonly conditions: readonly {
    readonly type: string;
    readonly status: string;
    readonly reason: string;
    readonly message: string | null;
    readonly lastTransitionAt: Schema.DateTimeString;
  }[];
  readonly gpus: readonly {
    readonly index: number;
    readonly name: string;
    readonly uuid: string;
    readonly memoryModel: string;
    readonly memorySource: string;
    readonly totalMemoryBytes: number | null;
    readonly freeMemoryBytes: number | null;
    readonly computeCapability: string;
  }[];
  readonly assignments: readonly {
    readonly id: string;
    readonly deploymentId: string;
    readonly nodeId: string;
    readonly nodeName: string;
    readonly intent: string;
    readonly generation: number;
    readonly ackedGeneration: number | null;
    readonly observedGeneration: number | null;
    readonly observedState: string | null;
    readonly observedAt: Schema.DateTimeString | null;
    readonly inFlight: number | null;
    readonly endpointPort: number | null;
    readonly leaseExpiresAt: Schema.DateTimeString;
    readonly message: string | null;
  }[];
};

/** Fragment from libs/sdk/graphql/cli/registry.graphql. */
export type CliModelFragment = {
  readonly id: string;
  readonly name: string;
  readonly displayName: string;
  readonly description: string | null;
  readonly createdBy: string;
  readonly createdAt: Schema.DateTimeString;
  readonly updatedAt: Schema.DateTimeString;
  readonly versions: readonly {
    readonly ref: string;
    readonly state: string;
  }[];
};

/** Fragment from libs/sdk/graphql/cli/registry.graphql. */
export type CliLicenseFragment = {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  readonly spdxId: string | null;
  readonly customName: string | null;
  readonly termsUri: string | null;
  readonly termsDigest: string | null;
  readonly commercialUse: boolean;
  readonly allowedDataClasses: readonly string[];
  readonly attribution: string | null;
  readonly approvalState: string;
  readonly decidedBy: string | null;
  readonly decidedAt: string | null;
  readonly note: string | null;
  readonly createdBy: string;
  readonly createdAt: Schema.DateTimeString;
};

/** Fragment from libs/sdk/graphql/cli/registry.graphql. */
export type CliRuntimeFragment = {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly kind: string;
  readonly allowed: boolean;
  readonly packaging: {
    readonly type: string;
    readonly image: string | null;
    readonly digest: string;
  };
  readonly launch: {
    readonly executable: string;
    readonly args: readonly string[];
    readonly envAllowlist: readonly string[];
    readonly containerPort: number | null;
  };
  readonly health: {
    readonly path: string;
    readonly startupTimeoutMs: number;
    readonly intervalMs: number;
  };
  readonly supportedHardware: {
    readonly architectures: readonly string[];
    readonly memoryModels: readonly string[];
    readonly minComputeCapability: string;
    readonly maxComputeCapability: string | null;
    readonly minCudaVersion: string | null;
    readonly gpusPerReplica: number;
    readonly minMemoryBytesPerReplica: number | null;
  };
  readonly createdBy: string;
  readonly createdAt: Schema.DateTimeString;
};

/** Fragment from libs/sdk/graphql/cli/registry.graphql. */
export type CliModelVersionFragment = {
  readonly id: string;
  readonly ref: string;
  readonly model: string;
  readonly version: string;
  readonly state: string;
  readonly stateReason: string | null;
  readonly allowedEvents: readonly string[];
  readonly contextLength: number | null;
  readonly parameterCount: number | null;
  readonly createdBy: string;
  readonly createdAt: Schema.DateTimeString;
  readonly updatedAt: Schema.DateTimeString;
  readonly artifact: {
    readonly uri: string;
    readonly digest: string;
    readonly sizeBytes: number;
    readonly format: string;
    readonly provenance: {
      readonly source: string;
      readonly uploader: string;
      readonly uploadedAt: string;
      readonly signature: {
        readonly algorithm: string;
        readonly keyId: string;
      } | null;
    };
  };
  readonly requirements: {
    readonly architectures: readonly string[];
    readonly memoryModels: readonly string[];
    readonly minComputeCapability: string;
    readonly maxComputeCapability: string | null;
    readonly minCudaVersion: string | null;
    readonly gpusPerReplica: number;
    readonly minMemoryBytesPerReplica: number | null;
  };
  readonly verification: {
    readonly ok: boolean;
    readonly digest: string | null;
    readonly sizeBytes: number | null;
    readonly store: string;
    readonly verifiedAt: string;
    readonly code: string | null;
    readonly message: string | null;
  } | null;
  readonly evaluation: {
    readonly runId: string;
    readonly suite: string;
    readonly passed: boolean;
    readonly evaluatedAt: string;
  } | null;
  readonly runtimeEnv: readonly {
    readonly name: string;
    readonly value: string;
  }[];
  readonly license: {
    readonly name: string;
    readonly approvalState: string;
  };
  readonly runtime: {
    readonly id: string;
    readonly allowed: boolean;
  };
};

/** Fragment from libs/sdk/graphql/cli/rollouts.graphql. */
export type CliAliasFragment = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly dataClass: string;
  readonly currentRevision: number;
  readonly canaryWeight: number;
  readonly canaryDeploymentId: string | null;
  readonly current: {
    readonly revision: number;
    readonly modelRef: string;
    readonly deploymentId: string;
    readonly deploymentName: string | null;
    readonly reason: string;
    readonly restoredFrom: number | null;
  } | null;
  readonly revisions: readonly {
    readonly revision: number;
    readonly modelRef: string;
    readonly deploymentId: string;
    readonly deploymentName: string | null;
    readonly reason: string;
    readonly restoredFrom: number | null;
    readonly rolloutId: string | null;
    readonly createdBy: string;
    readonly createdAt: string;
  }[];
  readonly activeRollout: {
    readonly id: string;
    readonly state: string;
    readonly currentWeight: number;
  } | null;
};

/** Fragment from libs/sdk/graphql/cli/rollouts.graphql. */
export type CliRolloutFragment = {
  readonly id: string;
  readonly alias: string;
  readonly modelRef: string;
  readonly baseRevision: number;
  readonly state: string;
  readonly stateReason: string | null;
  readonly refusalCode: string | null;
  readonly steps: readonly number[];
  readonly currentStep: number;
  readonly currentWeight: number;
  readonly canaryDeploymentId: string | null;
  readonly workflowId: string;
  readonly temporalUiUrl: string;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly finishedAt: string | null;
  readonly analyses: readonly {
    readonly step: number;
    readonly weight: number;
    readonly window: number;
    readonly verdict: string;
    readonly reasons: readonly string[];
    readonly canaryRequests: number;
    readonly canaryErrors: number;
    readonly canaryErrorRate: number;
    readonly canaryP95Ms: number | null;
    readonly stableRequests: number | null;
    readonly stableErrorRate: number | null;
    readonly stableP95Ms: number | null;
  }[];
  readonly receipts: readonly {
    readonly seq: number;
    readonly action: string;
    readonly result: string;
    readonly evidenceJson: string;
    readonly hash: string;
    readonly occurredAt: string;
  }[];
};

/** Fragment from libs/sdk/graphql/cli/signing.graphql. */
export type CliTrustedSigningKeyFragment = {
  readonly keyId: string;
  readonly algorithm: string;
  readonly publicKey: string;
  readonly label: string;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
  readonly revokedBy: string | null;
};

/** Fragment from libs/sdk/graphql/cli/tenancy.graphql. */
export type CliGatewayKeyFragment = {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly prefix: string;
  readonly aliases: readonly string[];
  readonly state: string;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly revokedBy: string | null;
  readonly lastUsedAt: string | null;
};

/** Fragment from libs/sdk/graphql/cli/tenancy.graphql. */
export type CliTenantFragment = {
  readonly id: string;
  readonly displayName: string | null;
  readonly quota: {
    readonly requestsPerMinute: number | null;
    readonly tokensPerMinute: number | null;
    readonly maxConcurrentRequests: number | null;
  };
  readonly keyCount: number;
  readonly activeKeyCount: number;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly updatedBy: string;
  readonly updatedAt: string;
};

/** Fragment from libs/sdk/graphql/console/access.graphql. */
export type ConsoleOperatorFragment = {
  readonly id: string;
  readonly username: string;
  readonly role: Schema.Role;
  readonly disabledAt: Schema.DateTimeString | null;
  readonly createdAt: Schema.DateTimeString;
};

/** Fragment from libs/sdk/graphql/console/access.graphql. */
export type ConsoleApiTokenFragment = {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly role: Schema.Role;
  readonly ownerUsername: string;
  readonly createdAt: Schema.DateTimeString;
  readonly expiresAt: Schema.DateTimeString | null;
  readonly lastUsedAt: Schema.DateTimeString | null;
  readonly revokedAt: Schema.DateTimeString | null;
};

/** Fragment from libs/sdk/graphql/console/benchmarks.graphql. */
export type ConsoleLoadFiguresFragment = {
  readonly concurrency: number;
  readonly requests: number;
  readonly errors: number;
  readonly errorRate: number;
  readonly ttftMs: {
    readonly p50: number;
    readonly p95: number;
    readonly p99: number;
  } | null;
  readonly latencyMs: {
    readonly p50: number;
    readonly p95: number;
    readonly p99: number;
  } | null;
  readonly requestsPerSecond: number;
  readonly tokensPerSecond: number;
  readonly queueDepth: {
    readonly max: number;
    readonly mean: number;
  } | null;
  readonly durationMs: number;
};

/** Fragment from libs/sdk/graphql/console/deployments.graphql. */
export type ConsoleDeploymentFragment = {
  readonly id: string;
  readonly name: string;
  readonly modelRef: string;
  readonly purpose: string;
  readonly state: string;
  readonly stateReason: string | null;
  readonly generation: number;
  readonly observedGeneration: number;
  readonly desiredReplicas: number;
  readonly readyReplicas: number;
  readonly createdBy: string;
  readonly createdAt: Schema.DateTimeString;
  readonly updatedAt: Schema.DateTimeString;
  readonly workflowId: string;
  readonly temporalUiUrl: string;
  readonly assignments: readonly {
    readonly id: string;
    readonly nodeId: string;
    readonly nodeName: string;
    readonly generation: number;
    readonly intent: string;
    readonly leaseExpiresAt: Schema.DateTimeString;
    readonly ackedGeneration: number | null;
    readonly observedState: string | null;
    readonly observedGeneration: number | null;
    readonly inFlight: number | null;
    readonly message: string | null;
    readonly observedAt: Schema.DateTimeString | null;
  }[];
  readonly placement: {
    readonly decidedAt: string;
    readonly chosen: readonly {
      readonly node: string;
      readonly reason: string;
    }[];
    readonly rejected: readonly {
      readonly node: string;
      readonly reasons: readonly string[];
    }[];
    readonly unplaced: number;
  } | null;
};

/** Fragment from libs/sdk/graphql/console/fleet-health.graphql. */
export type ConsoleHealingPlanFragment = {
  readonly dryRun: boolean;
  readonly actions: readonly {
    readonly rule: string;
    readonly kind: string;
    readonly target: string;
    readonly nodeId: string;
    readonly deploymentId: string | null;
    readonly reason: string;
    readonly outcome: string | null;
    readonly receiptHash: string | null;
  }[];
  readonly skipped: readonly {
    readonly rule: string;
    readonly target: string;
    readonly reason: string;
  }[];
};

/** Fragment from libs/sdk/graphql/console/fleet-health.graphql. */
export type ConsoleReconcileRunFragment = {
  readonly dryRun: boolean;
  readonly inSync: boolean;
  readonly workflowId: string;
  readonly temporalUiUrl: string;
  readonly receiptHash: string | null;
  readonly drift: readonly {
    readonly kind: string;
    readonly target: string;
    readonly deploymentId: string | null;
    readonly nodeId: string | null;
    readonly desired: string;
    readonly observed: string;
    readonly note: string;
    readonly repair: string | null;
  }[];
  readonly repairs: readonly {
    readonly kind: string;
    readonly target: string;
    readonly deploymentId: string;
    readonly reason: string;
    readonly outcome: string;
  }[];
};

/** Fragment from libs/sdk/graphql/console/models.graphql. */
export type ConsoleEvaluationRunFragment = {
  readonly id: string;
  readonly modelRef: string;
  readonly deploymentId: string;
  readonly suite: string;
  readonly profile: string | null;
  readonly state: string;
  readonly passed: boolean | null;
  readonly reasons: readonly string[];
  readonly errorCode: string | null;
  readonly workflowId: string;
  readonly temporalUiUrl: string;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly finishedAt: string | null;
  readonly scores: {
    readonly passRate: number;
    readonly passedCases: number;
    readonly totalCases: number;
    readonly passThreshold: number;
  } | null;
  readonly metrics: {
    readonly requests: number;
    readonly errorRate: number;
    readonly tokensPerSecond: number;
    readonly ttftMs: {
      readonly p50: number;
      readonly p95: number;
      readonly p99: number;
    } | null;
  } | null;
};

/** Fragment from libs/sdk/graphql/console/models.graphql. */
export type ConsoleModelVersionFragment = {
  readonly id: string;
  readonly ref: string;
  readonly model: string;
  readonly version: string;
  readonly runtimeKind: string;
  readonly state: string;
  readonly stateReason: string | null;
  readonly allowedEvents: readonly string[];
  readonly contextLength: number | null;
  readonly parameterCount: number | null;
  readonly createdBy: string;
  readonly createdAt: Schema.DateTimeString;
  readonly updatedAt: Schema.DateTimeString;
  readonly artifact: {
    readonly uri: string;
    readonly digest: string;
    readonly sizeBytes: number;
    readonly format: string;
    readonly provenance: {
      readonly source: string;
      readonly uploader: string;
      readonly uploadedAt: string;
      readonly signature: {
        readonly algorithm: string;
        readonly keyId: string;
      } | null;
    };
  };
  readonly requirements: {
    readonly architectures: readonly string[];
    readonly memoryModels: readonly string[];
    readonly minComputeCapability: string;
    readonly maxComputeCapability: string | null;
    readonly minCudaVersion: string | null;
    readonly gpusPerReplica: number;
    readonly minMemoryBytesPerReplica: number | null;
  };
  readonly verification: {
    readonly ok: boolean;
    readonly digest: string | null;
    readonly sizeBytes: number | null;
    readonly store: string;
    readonly verifiedAt: string;
    readonly code: string | null;
    readonly message: string | null;
  } | null;
  readonly evaluation: {
    readonly runId: string;
    readonly suite: string;
    readonly passed: boolean;
    readonly evaluatedAt: string;
    readonly scores: readonly {
      readonly name: string;
      readonly value: number;
    }[];
  } | null;
  readonly license: {
    readonly id: string;
    readonly name: string;
    readonly kind: string;
    readonly spdxId: string | null;
    readonly customName: string | null;
    readonly termsUri: string | null;
    readonly commercialUse: boolean;
    readonly allowedDataClasses: readonly string[];
    readonly approvalState: string;
    readonly decidedBy: string | null;
    readonly decidedAt: string | null;
    readonly note: string | null;
  };
  readonly runtime: {
    readonly id: string;
    readonly name: string;
    readonly version: string;
    readonly kind: string;
    readonly allowed: boolean;
    readonly supportedHardware: {
      readonly architectures: readonly string[];
      readonly memoryModels: readonly string[];
      readonly minComputeCapability: string;
      readonly maxComputeCapability: string | null;
      readonly minCudaVersion: string | null;
      readonly gpusPerReplica: number;
      readonly minMemoryBytesPerReplica: number | null;
    };
  };
};

/** Fragment from libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleFleetNodeFragment = {
  readonly id: string;
  readonly name: string;
  readonly lifecycle: string;
  readonly readiness: string;
  readonly conditions: readonly {
    readonly type: string;
    readonly status: string;
    readonly reason: string;
    readonly message: string | null;
    readonly lastTransitionAt: Schema.DateTimeString;
  }[];
  readonly cordoned: boolean;
  readonly actions: readonly {
    readonly action: string;
    readonly allowed: boolean;
    readonly reason: string | null;
  }[];
  readonly labels: readonly {
    readonly key: string;
    readonly value: string;
  }[];
  readonly taints: readonly {
    readonly key: string;
    readonly value: string;
    readonly effect: string;
  }[];
  readonly address: string;
  readonly sshPort: number;
  readonly hostKeyFingerprint: string;
  readonly keyId: string;
  readonly nextKeyId: string | null;
  readonly credentialSerial: number;
  readonly credentialExpiresAt: Schema.DateTimeString | null;
  readonly leaseRenewedAt: Schema.DateTimeString | null;
  readonly leaseExpiresAt: Schema.DateTimeString | null;
  readonly heartbeatAgeSeconds: number | null;
  readonly architecture: string;
  readonly cpuCores: number;
  readonly systemMemoryBytes: number;
  readonly agentVersion: string;
  readonly agentProtocol: number;
  readonly agentOutdated: boolean;
  readonly agentOutdatedReason: string | null;
  readonly gpus: readonly {
    readonly index: number;
    readonly name: string;
    readonly uuid: string;
    readonly memoryModel: string;
    readonly memorySource: string;
    readonly totalMemoryBytes: number | null;
    readonly freeMemoryBytes: number | null;
    readonly computeCapability: string;
  }[];
  readonly gpuTelemetry: readonly {
    readonly uuid: string;
    readonly index: number | null;
    readonly sampledAt: Schema.DateTimeString | null;
    readonly utilizationPercent: number | null;
    readonly memoryUsedBytes: number | null;
    readonly memoryTotalBytes: number | null;
    readonly memorySource: string | null;
    readonly temperatureCelsius: number | null;
    readonly powerWatts: number | null;
    readonly powerLimitWatts: number | null;
    readonly throttleReasons: readonly string[] | null;
    readonly eccUncorrectedErrors: number | null;
    readonly lastXid: number | null;
    readonly lastError: string | null;
    readonly lost: boolean;
    readonly processMemoryBytes: number;
    readonly processCount: number;
  }[];
  readonly assignments: readonly {
    readonly id: string;
    readonly deploymentId: string;
    readonly nodeName: string;
    readonly generation: number;
    readonly intent: string;
    readonly leaseExpiresAt: Schema.DateTimeString;
    readonly ackedGeneration: number | null;
    readonly observedState: string | null;
    readonly observedGeneration: number | null;
    readonly endpointPort: number | null;
    readonly inFlight: number | null;
    readonly message: string | null;
    readonly observedAt: Schema.DateTimeString | null;
  }[];
  readonly enrollWorkflowId: string;
  readonly temporalUiUrl: string;
  readonly enrolledAt: Schema.DateTimeString;
  readonly updatedAt: Schema.DateTimeString;
};

/** Fragment from libs/sdk/graphql/console/policies.graphql. */
export type ConsoleRuntimeFragment = {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly kind: string;
  readonly allowed: boolean;
  readonly createdBy: string;
  readonly updatedAt: Schema.DateTimeString;
  readonly packaging: {
    readonly type: string;
    readonly image: string | null;
    readonly digest: string;
  };
};

/** Fragment from libs/sdk/graphql/console/policies.graphql. */
export type ConsoleDataPolicyFragment = {
  readonly tenantId: string;
  readonly dataClass: string;
  readonly retentionMode: string;
  readonly retentionDays: number | null;
  readonly evaluationCaptureConsent: boolean;
  readonly configured: boolean;
  readonly updatedBy: string;
  readonly updatedAt: string;
};

/** Fragment from libs/sdk/graphql/console/policies.graphql. */
export type ConsoleSigningKeyFragment = {
  readonly keyId: string;
  readonly label: string;
  readonly algorithm: string;
  readonly createdAt: string;
  readonly createdBy: string;
  readonly revokedAt: string | null;
  readonly revokedBy: string | null;
};

/** Fragment from libs/sdk/graphql/console/registry.graphql. */
export type ConsoleRegistryLicenseFragment = {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  readonly spdxId: string | null;
  readonly customName: string | null;
  readonly termsUri: string | null;
  readonly termsDigest: string | null;
  readonly commercialUse: boolean;
  readonly allowedDataClasses: readonly string[];
  readonly attribution: string | null;
  readonly approvalState: string;
  readonly decidedBy: string | null;
  readonly decidedAt: string | null;
  readonly note: string | null;
  readonly createdBy: string;
  readonly createdAt: Schema.DateTimeString;
};

/** Fragment from libs/sdk/graphql/console/registry.graphql. */
export type ConsoleRegistryRuntimeFragment = {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly kind: string;
  readonly allowed: boolean;
  readonly metricsFormat: string;
  readonly createdBy: string;
  readonly createdAt: Schema.DateTimeString;
  readonly updatedAt: Schema.DateTimeString;
  readonly packaging: {
    readonly type: string;
    readonly image: string | null;
    readonly digest: string;
  };
  readonly launch: {
    readonly executable: string;
    readonly args: readonly string[];
  };
  readonly supportedHardware: {
    readonly architectures: readonly string[];
    readonly memoryModels: readonly string[];
    readonly gpusPerReplica: number;
    readonly minComputeCapability: string;
  };
};

/** Fragment from libs/sdk/graphql/console/registry.graphql. */
export type ConsoleRegistrySuiteFragment = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly digest: string;
  readonly caseCount: number;
  readonly passThreshold: number;
  readonly concurrency: number;
  readonly caseTimeoutSeconds: number;
  readonly createdBy: string;
  readonly createdAt: string;
};

/** Fragment from libs/sdk/graphql/console/registry.graphql. */
export type ConsoleRegistryProfileFragment = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly digest: string;
  readonly concurrency: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly durationSeconds: number | null;
  readonly requestCount: number | null;
  readonly requestTimeoutSeconds: number;
  readonly maxErrorRate: number | null;
  readonly maxTtftP95Ms: number | null;
  readonly minTokensPerSecond: number | null;
  readonly createdBy: string;
  readonly createdAt: string;
};

/** Fragment from libs/sdk/graphql/console/rollouts.graphql. */
export type ConsoleRolloutFragment = {
  readonly id: string;
  readonly alias: string;
  readonly modelRef: string;
  readonly state: string;
  readonly currentStep: number;
  readonly currentWeight: number;
  readonly steps: readonly number[];
  readonly createdAt: string;
};

/** Fragment from libs/sdk/graphql/console/rollouts.graphql. */
export type ConsoleAliasFragment = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly dataClass: string;
  readonly currentRevision: number;
  readonly canaryWeight: number;
  readonly canaryDeploymentId: string | null;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly current: {
    readonly revision: number;
    readonly modelRef: string;
    readonly modelVersionId: string;
    readonly deploymentId: string;
    readonly deploymentName: string | null;
    readonly reason: string;
    readonly restoredFrom: number | null;
    readonly rolloutId: string | null;
    readonly createdBy: string;
    readonly createdAt: string;
  } | null;
  readonly activeRollout: ConsoleRolloutFragment | null;
};

/** Fragment from libs/sdk/graphql/console/tenants.graphql. */
export type ConsoleGatewayKeyFragment = {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly prefix: string;
  readonly aliases: readonly string[];
  readonly state: string;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly revokedBy: string | null;
  readonly lastUsedAt: string | null;
};

/** Fragment from libs/sdk/graphql/console/tenants.graphql. */
export type ConsoleTenantFragment = {
  readonly id: string;
  readonly displayName: string | null;
  readonly quota: {
    readonly requestsPerMinute: number | null;
    readonly tokensPerMinute: number | null;
    readonly maxConcurrentRequests: number | null;
  };
  readonly keyCount: number;
  readonly activeKeyCount: number;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly updatedBy: string;
  readonly updatedAt: string;
};

/** From libs/sdk/graphql/cli/controller-keys.graphql. */
export type ControllerKeyRingQuery = {
  readonly controllerKeyRing: {
    readonly phase: string;
    readonly rotationWorkflowId: string | null;
    readonly temporalUiUrl: string | null;
    readonly keys: readonly CliControllerRingKeyFragment[];
  };
};

export type ControllerKeyRingQueryVariables = Record<string, never>;

export const ControllerKeyRingDocument: TypedDocument<
  ControllerKeyRingQuery,
  ControllerKeyRingQueryVariables
> = {
  operationName: 'ControllerKeyRing',
  document: `query ControllerKeyRing {
  controllerKeyRing {
    phase
    rotationWorkflowId
    temporalUiUrl
    keys {
      ...CliControllerRingKey
    }
  }
}

fragment CliControllerRingKey on ControllerRingKey {
  keyId
  sshFingerprint
  publicKey
  state
  rotationId
  acceptUntil
  stateChangedAt
}`,
};

/** From libs/sdk/graphql/cli/controller-keys.graphql. */
export type RotateControllerKeyMutation = {
  readonly rotateControllerKey: {
    readonly rotationId: string;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly switchAt: string;
    readonly retireAt: string;
    readonly nextKey: CliControllerRingKeyFragment;
  };
};

export type RotateControllerKeyMutationVariables = {
  readonly input: Schema.RotateControllerKeyInput;
};

export const RotateControllerKeyDocument: TypedDocument<
  RotateControllerKeyMutation,
  RotateControllerKeyMutationVariables
> = {
  operationName: 'RotateControllerKey',
  document: `mutation RotateControllerKey($input: RotateControllerKeyInput!) {
  rotateControllerKey(input: $input) {
    rotationId
    workflowId
    temporalUiUrl
    switchAt
    retireAt
    nextKey {
      ...CliControllerRingKey
    }
  }
}

fragment CliControllerRingKey on ControllerRingKey {
  keyId
  sshFingerprint
  publicKey
  state
  rotationId
  acceptUntil
  stateChangedAt
}`,
};

/** From libs/sdk/graphql/cli/data-policy.graphql. */
export type DataPoliciesQuery = {
  readonly dataPolicies: readonly CliDataPolicyFragment[];
};

export type DataPoliciesQueryVariables = Record<string, never>;

export const DataPoliciesDocument: TypedDocument<DataPoliciesQuery, DataPoliciesQueryVariables> = {
  operationName: 'DataPolicies',
  document: `query DataPolicies {
  dataPolicies {
    ...CliDataPolicy
  }
}

fragment CliDataPolicy on DataPolicy {
  tenantId
  dataClass
  retentionMode
  retentionDays
  evaluationCaptureConsent
  configured
  updatedBy
  updatedAt
}`,
};

/** From libs/sdk/graphql/cli/data-policy.graphql. */
export type DataPolicyQuery = {
  readonly dataPolicy: CliDataPolicyFragment;
};

export type DataPolicyQueryVariables = {
  readonly tenantId: string;
};

export const DataPolicyDocument: TypedDocument<DataPolicyQuery, DataPolicyQueryVariables> = {
  operationName: 'DataPolicy',
  document: `query DataPolicy($tenantId: String!) {
  dataPolicy(tenantId: $tenantId) {
    ...CliDataPolicy
  }
}

fragment CliDataPolicy on DataPolicy {
  tenantId
  dataClass
  retentionMode
  retentionDays
  evaluationCaptureConsent
  configured
  updatedBy
  updatedAt
}`,
};

/** From libs/sdk/graphql/cli/data-policy.graphql. */
export type SetDataPolicyMutation = {
  readonly setDataPolicy: CliDataPolicyFragment;
};

export type SetDataPolicyMutationVariables = {
  readonly input: Schema.SetDataPolicyInput;
};

export const SetDataPolicyDocument: TypedDocument<SetDataPolicyMutation, SetDataPolicyMutationVariables> = {
  operationName: 'SetDataPolicy',
  document: `mutation SetDataPolicy($input: SetDataPolicyInput!) {
  setDataPolicy(input: $input) {
    ...CliDataPolicy
  }
}

fragment CliDataPolicy on DataPolicy {
  tenantId
  dataClass
  retentionMode
  retentionDays
  evaluationCaptureConsent
  configured
  updatedBy
  updatedAt
}`,
};

/** From libs/sdk/graphql/cli/digest.graphql. */
export type ControlPlaneDigestQuery = {
  readonly controlPlaneDigest: {
    readonly registry: string;
    readonly desiredState: string;
    readonly auditChain: {
      readonly events: number;
      readonly headHash: string | null;
      readonly valid: boolean;
    };
  };
};

export type ControlPlaneDigestQueryVariables = Record<string, never>;

export const ControlPlaneDigestDocument: TypedDocument<
  ControlPlaneDigestQuery,
  ControlPlaneDigestQueryVariables
> = {
  operationName: 'ControlPlaneDigest',
  document: `query ControlPlaneDigest {
  controlPlaneDigest {
    registry
    desiredState
    auditChain {
      events
      headHash
      valid
    }
  }
}`,
};

/** From libs/sdk/graphql/cli/digest.graphql. */
export type AuditEventHashQuery = {
  readonly auditEvent: {
    readonly seq: number;
    readonly hash: string;
  } | null;
};

export type AuditEventHashQueryVariables = {
  readonly seq: number;
};

export const AuditEventHashDocument: TypedDocument<AuditEventHashQuery, AuditEventHashQueryVariables> = {
  operationName: 'AuditEventHash',
  document: `query AuditEventHash($seq: Int!) {
  auditEvent(seq: $seq) {
    seq
    hash
  }
}`,
};

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export type CreateEvaluationSuiteMutation = {
  readonly createEvaluationSuite: {
    readonly id: string;
    readonly name: string;
    readonly digest: string;
    readonly caseCount: number;
    readonly passThreshold: number;
    readonly createdAt: string;
  };
};

export type CreateEvaluationSuiteMutationVariables = {
  readonly input: Schema.CreateEvaluationSuiteInput;
};

export const CreateEvaluationSuiteDocument: TypedDocument<
  CreateEvaluationSuiteMutation,
  CreateEvaluationSuiteMutationVariables
> = {
  operationName: 'CreateEvaluationSuite',
  document: `mutation CreateEvaluationSuite($input: CreateEvaluationSuiteInput!) {
  createEvaluationSuite(input: $input) {
    id
    name
    digest
    caseCount
    passThreshold
    createdAt
  }
}`,
};

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export type EvaluationSuitesQuery = {
  readonly evaluationSuites: readonly {
    readonly id: string;
    readonly name: string;
    readonly digest: string;
    readonly caseCount: number;
    readonly passThreshold: number;
    readonly createdAt: string;
  }[];
};

export type EvaluationSuitesQueryVariables = Record<string, never>;

export const EvaluationSuitesDocument: TypedDocument<EvaluationSuitesQuery, EvaluationSuitesQueryVariables> =
  {
    operationName: 'EvaluationSuites',
    document: `query EvaluationSuites {
  evaluationSuites {
    id
    name
    digest
    caseCount
    passThreshold
    createdAt
  }
}`,
  };

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export type CreateBenchmarkProfileMutation = {
  readonly createBenchmarkProfile: {
    readonly id: string;
    readonly name: string;
    readonly digest: string;
    readonly concurrency: number;
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly durationSeconds: number | null;
    readonly requestCount: number | null;
    readonly createdAt: string;
  };
};

export type CreateBenchmarkProfileMutationVariables = {
  readonly input: Schema.CreateBenchmarkProfileInput;
};

export const CreateBenchmarkProfileDocument: TypedDocument<
  CreateBenchmarkProfileMutation,
  CreateBenchmarkProfileMutationVariables
> = {
  operationName: 'CreateBenchmarkProfile',
  document: `mutation CreateBenchmarkProfile($input: CreateBenchmarkProfileInput!) {
  createBenchmarkProfile(input: $input) {
    id
    name
    digest
    concurrency
    inputTokens
    outputTokens
    durationSeconds
    requestCount
    createdAt
  }
}`,
};

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export type BenchmarkProfilesQuery = {
  readonly benchmarkProfiles: readonly {
    readonly id: string;
    readonly name: string;
    readonly digest: string;
    readonly concurrency: number;
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly durationSeconds: number | null;
    readonly requestCount: number | null;
    readonly createdAt: string;
  }[];
};

export type BenchmarkProfilesQueryVariables = Record<string, never>;

export const BenchmarkProfilesDocument: TypedDocument<
  BenchmarkProfilesQuery,
  BenchmarkProfilesQueryVariables
> = {
  operationName: 'BenchmarkProfiles',
  document: `query BenchmarkProfiles {
  benchmarkProfiles {
    id
    name
    digest
    concurrency
    inputTokens
    outputTokens
    durationSeconds
    requestCount
    createdAt
  }
}`,
};

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export type StartEvaluationMutation = {
  readonly startEvaluation: {
    readonly runId: string;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly run: CliEvaluationRunFragment | null;
  };
};

export type StartEvaluationMutationVariables = {
  readonly input: Schema.StartEvaluationInput;
};

export const StartEvaluationDocument: TypedDocument<
  StartEvaluationMutation,
  StartEvaluationMutationVariables
> = {
  operationName: 'StartEvaluation',
  document: `mutation StartEvaluation($input: StartEvaluationInput!) {
  startEvaluation(input: $input) {
    runId
    workflowId
    temporalUiUrl
    correlationId
    run {
      ...CliEvaluationRun
    }
  }
}

fragment CliEvaluationRun on EvaluationRun {
  id
  modelRef
  deploymentId
  suite
  profile
  state
  passed
  reasons
  errorCode
  workflowId
  temporalUiUrl
  createdAt
  finishedAt
  scores {
    passRate
    passedCases
    totalCases
    passThreshold
    cases {
      caseId
      grader
      passed
      reason
      errorCode
    }
  }
  metrics {
    requests
    errors
    errorRate
    ttftMs {
      p50
      p95
      p99
    }
    tokensPerSecond
    completionTokens
    durationMs
    concurrency
  }
}`,
};

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export type EvaluationRunQuery = {
  readonly evaluationRun: CliEvaluationRunFragment | null;
};

export type EvaluationRunQueryVariables = {
  readonly id: string;
};

export const EvaluationRunDocument: TypedDocument<EvaluationRunQuery, EvaluationRunQueryVariables> = {
  operationName: 'EvaluationRun',
  document: `query EvaluationRun($id: ID!) {
  evaluationRun(id: $id) {
    ...CliEvaluationRun
  }
}

fragment CliEvaluationRun on EvaluationRun {
  id
  modelRef
  deploymentId
  suite
  profile
  state
  passed
  reasons
  errorCode
  workflowId
  temporalUiUrl
  createdAt
  finishedAt
  scores {
    passRate
    passedCases
    totalCases
    passThreshold
    cases {
      caseId
      grader
      passed
      reason
      errorCode
    }
  }
  metrics {
    requests
    errors
    errorRate
    ttftMs {
      p50
      p95
      p99
    }
    tokensPerSecond
    completionTokens
    durationMs
    concurrency
  }
}`,
};

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export type EvaluationRunsQuery = {
  readonly evaluationRuns: readonly CliEvaluationRunFragment[];
};

export type EvaluationRunsQueryVariables = {
  readonly v?: string | null;
  readonly p?: string | null;
};

export const EvaluationRunsDocument: TypedDocument<EvaluationRunsQuery, EvaluationRunsQueryVariables> = {
  operationName: 'EvaluationRuns',
  document: `query EvaluationRuns($v: String, $p: String) {
  evaluationRuns(modelVersion: $v, profile: $p) {
    ...CliEvaluationRun
  }
}

fragment CliEvaluationRun on EvaluationRun {
  id
  modelRef
  deploymentId
  suite
  profile
  state
  passed
  reasons
  errorCode
  workflowId
  temporalUiUrl
  createdAt
  finishedAt
  scores {
    passRate
    passedCases
    totalCases
    passThreshold
    cases {
      caseId
      grader
      passed
      reason
      errorCode
    }
  }
  metrics {
    requests
    errors
    errorRate
    ttftMs {
      p50
      p95
      p99
    }
    tokensPerSecond
    completionTokens
    durationMs
    concurrency
  }
}`,
};

/** From libs/sdk/graphql/cli/evaluation.graphql. */
export type BenchmarkComparisonQuery = {
  readonly benchmarkComparison: {
    readonly profile: string;
    readonly profileDigest: string;
    readonly baseline: string;
    readonly regressed: boolean;
    readonly thresholds: {
      readonly maxTtftP95Increase: number;
      readonly ttftSlackMs: number;
      readonly maxTokensPerSecondDrop: number;
      readonly maxErrorRateIncrease: number;
      readonly maxPassRateDrop: number;
    };
    readonly entries: readonly {
      readonly modelRef: string;
      readonly baseline: boolean;
      readonly passRate: number | null;
      readonly ttftP50Ms: number | null;
      readonly ttftP95Ms: number | null;
      readonly ttftP99Ms: number | null;
      readonly tokensPerSecond: number | null;
      readonly errorRate: number | null;
      readonly sameSuiteAsBaseline: boolean;
      readonly regressed: boolean;
      readonly regressions: readonly {
        readonly metric: string;
        readonly baseline: number;
        readonly candidate: number;
        readonly reason: string;
      }[];
      readonly run: {
        readonly id: string;
      } | null;
    }[];
  };
};

export type BenchmarkComparisonQueryVariables = {
  readonly p: string;
  readonly v: readonly string[];
  readonly b?: string | null;
};

export const BenchmarkComparisonDocument: TypedDocument<
  BenchmarkComparisonQuery,
  BenchmarkComparisonQueryVariables
> = {
  operationName: 'BenchmarkComparison',
  document: `query BenchmarkComparison($p: String!, $v: [String!]!, $b: String) {
  benchmarkComparison(profile: $p, modelVersions: $v, baseline: $b) {
    profile
    profileDigest
    baseline
    regressed
    thresholds {
      maxTtftP95Increase
      ttftSlackMs
      maxTokensPerSecondDrop
      maxErrorRateIncrease
      maxPassRateDrop
    }
    entries {
      modelRef
      baseline
      passRate
      ttftP50Ms
      ttftP95Ms
      ttftP99Ms
      tokensPerSecond
      errorRate
      sameSuiteAsBaseline
      regressed
      regressions {
        metric
        baseline
        candidate
        reason
      }
      run {
        id
      }
    }
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type NodesQuery = {
  readonly nodes: readonly CliFleetNodeFragment[];
};

export type NodesQueryVariables = Record<string, never>;

export const NodesDocument: TypedDocument<NodesQuery, NodesQueryVariables> = {
  operationName: 'Nodes',
  document: `query Nodes {
  nodes {
    ...CliFleetNode
  }
}

fragment CliFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  cordoned
  heartbeatAgeSeconds
  address
  sshPort
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  architecture
  cpuCores
  systemMemoryBytes
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  enrolledAt
  updatedAt
  enrollWorkflowId
  temporalUiUrl
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type NodeQuery = {
  readonly node: CliFleetNodeFragment | null;
};

export type NodeQueryVariables = {
  readonly node: string;
};

export const NodeDocument: TypedDocument<NodeQuery, NodeQueryVariables> = {
  operationName: 'Node',
  document: `query Node($node: String!) {
  node(node: $node) {
    ...CliFleetNode
  }
}

fragment CliFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  cordoned
  heartbeatAgeSeconds
  address
  sshPort
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  architecture
  cpuCores
  systemMemoryBytes
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  enrolledAt
  updatedAt
  enrollWorkflowId
  temporalUiUrl
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type BootstrapTokensQuery = {
  readonly bootstrapTokens: readonly CliBootstrapTokenFragment[];
};

export type BootstrapTokensQueryVariables = Record<string, never>;

export const BootstrapTokensDocument: TypedDocument<BootstrapTokensQuery, BootstrapTokensQueryVariables> = {
  operationName: 'BootstrapTokens',
  document: `query BootstrapTokens {
  bootstrapTokens {
    ...CliBootstrapToken
  }
}

fragment CliBootstrapToken on BootstrapToken {
  id
  prefix
  nodeName
  labels {
    key
    value
  }
  autoApprove
  createdBy
  createdAt
  expiresAt
  usedAt
  usedByNodeId
  revokedAt
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type CreateBootstrapTokenMutation = {
  readonly createBootstrapToken: {
    readonly token: string;
    readonly agentInvocation: string;
    readonly controllerUrl: string;
    readonly controllerKeyFingerprint: string;
    readonly bootstrapToken: CliBootstrapTokenFragment;
  };
};

export type CreateBootstrapTokenMutationVariables = {
  readonly input: Schema.CreateBootstrapTokenInput;
};

export const CreateBootstrapTokenDocument: TypedDocument<
  CreateBootstrapTokenMutation,
  CreateBootstrapTokenMutationVariables
> = {
  operationName: 'CreateBootstrapToken',
  document: `mutation CreateBootstrapToken($input: CreateBootstrapTokenInput!) {
  createBootstrapToken(input: $input) {
    token
    agentInvocation
    controllerUrl
    controllerKeyFingerprint
    bootstrapToken {
      ...CliBootstrapToken
    }
  }
}

fragment CliBootstrapToken on BootstrapToken {
  id
  prefix
  nodeName
  labels {
    key
    value
  }
  autoApprove
  createdBy
  createdAt
  expiresAt
  usedAt
  usedByNodeId
  revokedAt
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type RevokeBootstrapTokenMutation = {
  readonly revokeBootstrapToken: CliBootstrapTokenFragment;
};

export type RevokeBootstrapTokenMutationVariables = {
  readonly id: string;
};

export const RevokeBootstrapTokenDocument: TypedDocument<
  RevokeBootstrapTokenMutation,
  RevokeBootstrapTokenMutationVariables
> = {
  operationName: 'RevokeBootstrapToken',
  document: `mutation RevokeBootstrapToken($id: ID!) {
  revokeBootstrapToken(id: $id) {
    ...CliBootstrapToken
  }
}

fragment CliBootstrapToken on BootstrapToken {
  id
  prefix
  nodeName
  labels {
    key
    value
  }
  autoApprove
  createdBy
  createdAt
  expiresAt
  usedAt
  usedByNodeId
  revokedAt
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type ApproveNodeMutation = {
  readonly approveNode: {
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly receiptHash: string | null;
    readonly node: CliFleetNodeFragment;
  };
};

export type ApproveNodeMutationVariables = {
  readonly node: string;
};

export const ApproveNodeDocument: TypedDocument<ApproveNodeMutation, ApproveNodeMutationVariables> = {
  operationName: 'ApproveNode',
  document: `mutation ApproveNode($node: String!) {
  approveNode(node: $node) {
    workflowId
    temporalUiUrl
    correlationId
    receiptHash
    node {
      ...CliFleetNode
    }
  }
}

fragment CliFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  cordoned
  heartbeatAgeSeconds
  address
  sshPort
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  architecture
  cpuCores
  systemMemoryBytes
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  enrolledAt
  updatedAt
  enrollWorkflowId
  temporalUiUrl
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type RejectNodeMutation = {
  readonly rejectNode: {
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly receiptHash: string | null;
    readonly node: CliFleetNodeFragment;
  };
};

export type RejectNodeMutationVariables = {
  readonly node: string;
  readonly reason: string;
};

export const RejectNodeDocument: TypedDocument<RejectNodeMutation, RejectNodeMutationVariables> = {
  operationName: 'RejectNode',
  document: `mutation RejectNode($node: String!, $reason: String!) {
  rejectNode(node: $node, reason: $reason) {
    workflowId
    temporalUiUrl
    correlationId
    receiptHash
    node {
      ...CliFleetNode
    }
  }
}

fragment CliFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  cordoned
  heartbeatAgeSeconds
  address
  sshPort
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  architecture
  cpuCores
  systemMemoryBytes
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  enrolledAt
  updatedAt
  enrollWorkflowId
  temporalUiUrl
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type SetNodeLabelsMutation = {
  readonly setNodeLabels: CliFleetNodeFragment;
};

export type SetNodeLabelsMutationVariables = {
  readonly node: string;
  readonly labels: readonly Schema.LabelInput[];
};

export const SetNodeLabelsDocument: TypedDocument<SetNodeLabelsMutation, SetNodeLabelsMutationVariables> = {
  operationName: 'SetNodeLabels',
  document: `mutation SetNodeLabels($node: String!, $labels: [LabelInput!]!) {
  setNodeLabels(node: $node, labels: $labels) {
    ...CliFleetNode
  }
}

fragment CliFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  cordoned
  heartbeatAgeSeconds
  address
  sshPort
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  architecture
  cpuCores
  systemMemoryBytes
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  enrolledAt
  updatedAt
  enrollWorkflowId
  temporalUiUrl
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type SetNodeTaintsMutation = {
  readonly setNodeTaints: CliFleetNodeFragment;
};

export type SetNodeTaintsMutationVariables = {
  readonly node: string;
  readonly taints: readonly Schema.TaintInput[];
};

export const SetNodeTaintsDocument: TypedDocument<SetNodeTaintsMutation, SetNodeTaintsMutationVariables> = {
  operationName: 'SetNodeTaints',
  document: `mutation SetNodeTaints($node: String!, $taints: [TaintInput!]!) {
  setNodeTaints(node: $node, taints: $taints) {
    ...CliFleetNode
  }
}

fragment CliFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  cordoned
  heartbeatAgeSeconds
  address
  sshPort
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  architecture
  cpuCores
  systemMemoryBytes
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  enrolledAt
  updatedAt
  enrollWorkflowId
  temporalUiUrl
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type CordonNodeMutation = {
  readonly node: CliFleetNodeFragment;
};

export type CordonNodeMutationVariables = {
  readonly node: string;
};

export const CordonNodeDocument: TypedDocument<CordonNodeMutation, CordonNodeMutationVariables> = {
  operationName: 'CordonNode',
  document: `mutation CordonNode($node: String!) {
  node: cordonNode(node: $node) {
    ...CliFleetNode
  }
}

fragment CliFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  cordoned
  heartbeatAgeSeconds
  address
  sshPort
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  architecture
  cpuCores
  systemMemoryBytes
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  enrolledAt
  updatedAt
  enrollWorkflowId
  temporalUiUrl
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type UncordonNodeMutation = {
  readonly node: CliFleetNodeFragment;
};

export type UncordonNodeMutationVariables = {
  readonly node: string;
};

export const UncordonNodeDocument: TypedDocument<UncordonNodeMutation, UncordonNodeMutationVariables> = {
  operationName: 'UncordonNode',
  document: `mutation UncordonNode($node: String!) {
  node: uncordonNode(node: $node) {
    ...CliFleetNode
  }
}

fragment CliFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  cordoned
  heartbeatAgeSeconds
  address
  sshPort
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  architecture
  cpuCores
  systemMemoryBytes
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  enrolledAt
  updatedAt
  enrollWorkflowId
  temporalUiUrl
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type DrainNodeMutation = {
  readonly drainNode: {
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly receiptHash: string;
    readonly replicasAtStart: number;
    readonly inFlightAtStart: number;
    readonly inFlightAtTimeout: number;
    readonly node: CliFleetNodeFragment;
  };
};

export type DrainNodeMutationVariables = {
  readonly node: string;
  readonly timeoutSeconds: number;
  readonly idempotencyKey?: string | null;
  readonly force?: boolean;
  readonly reason?: string | null;
};

export const DrainNodeDocument: TypedDocument<DrainNodeMutation, DrainNodeMutationVariables> = {
  operationName: 'DrainNode',
  document: `mutation DrainNode($node: String!, $timeoutSeconds: Int!, $idempotencyKey: String, $force: Boolean! = false, $reason: String) {
  drainNode(
    node: $node
    timeoutSeconds: $timeoutSeconds
    idempotencyKey: $idempotencyKey
    force: $force
    reason: $reason
  ) {
    workflowId
    temporalUiUrl
    correlationId
    receiptHash
    replicasAtStart
    inFlightAtStart
    inFlightAtTimeout
    node {
      ...CliFleetNode
    }
  }
}

fragment CliFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  cordoned
  heartbeatAgeSeconds
  address
  sshPort
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  architecture
  cpuCores
  systemMemoryBytes
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  enrolledAt
  updatedAt
  enrollWorkflowId
  temporalUiUrl
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type RotateNodeCredentialMutation = {
  readonly rotateNodeCredential: {
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly receiptHash: string | null;
    readonly node: CliFleetNodeFragment;
  };
};

export type RotateNodeCredentialMutationVariables = {
  readonly node: string;
  readonly idempotencyKey?: string | null;
};

export const RotateNodeCredentialDocument: TypedDocument<
  RotateNodeCredentialMutation,
  RotateNodeCredentialMutationVariables
> = {
  operationName: 'RotateNodeCredential',
  document: `mutation RotateNodeCredential($node: String!, $idempotencyKey: String) {
  rotateNodeCredential(node: $node, idempotencyKey: $idempotencyKey) {
    workflowId
    temporalUiUrl
    correlationId
    receiptHash
    node {
      ...CliFleetNode
    }
  }
}

fragment CliFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  cordoned
  heartbeatAgeSeconds
  address
  sshPort
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  architecture
  cpuCores
  systemMemoryBytes
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  enrolledAt
  updatedAt
  enrollWorkflowId
  temporalUiUrl
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type RegisterModelVersionMutation = {
  readonly registerModelVersion: {
    readonly id: string;
    readonly ref: string;
    readonly model: string;
    readonly version: string;
    readonly runtimeKind: string;
    readonly artifactDigest: string;
    readonly createdAt: Schema.DateTimeString;
    readonly createdBy: string;
  };
};

export type RegisterModelVersionMutationVariables = {
  readonly input: Schema.RegisterModelVersionInput;
};

export const RegisterModelVersionDocument: TypedDocument<
  RegisterModelVersionMutation,
  RegisterModelVersionMutationVariables
> = {
  operationName: 'RegisterModelVersion',
  document: `mutation RegisterModelVersion($input: RegisterModelVersionInput!) {
  registerModelVersion(input: $input) {
    id
    ref
    model
    version
    runtimeKind
    artifactDigest
    createdAt
    createdBy
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type DeploymentsQuery = {
  readonly deployments: readonly CliDeploymentFragment[];
};

export type DeploymentsQueryVariables = Record<string, never>;

export const DeploymentsDocument: TypedDocument<DeploymentsQuery, DeploymentsQueryVariables> = {
  operationName: 'Deployments',
  document: `query Deployments {
  deployments {
    ...CliDeployment
  }
}

fragment CliDeployment on Deployment {
  id
  name
  modelRef
  purpose
  state
  stateReason
  desiredReplicas
  readyReplicas
  generation
  observedGeneration
  workflowId
  temporalUiUrl
  createdAt
  createdBy
  updatedAt
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type DeploymentQuery = {
  readonly deployment: CliDeploymentFragment | null;
};

export type DeploymentQueryVariables = {
  readonly deployment: string;
};

export const DeploymentDocument: TypedDocument<DeploymentQuery, DeploymentQueryVariables> = {
  operationName: 'Deployment',
  document: `query Deployment($deployment: String!) {
  deployment(deployment: $deployment) {
    ...CliDeployment
  }
}

fragment CliDeployment on Deployment {
  id
  name
  modelRef
  purpose
  state
  stateReason
  desiredReplicas
  readyReplicas
  generation
  observedGeneration
  workflowId
  temporalUiUrl
  createdAt
  createdBy
  updatedAt
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type PlacementPlanQuery = {
  readonly placementPlan: {
    readonly strategy: string;
    readonly replicas: number;
    readonly chosen: readonly {
      readonly node: string;
      readonly reason: string;
    }[];
    readonly rejected: readonly {
      readonly node: string;
      readonly reasons: readonly string[];
    }[];
    readonly unplaced: number;
  };
};

export type PlacementPlanQueryVariables = {
  readonly input: Schema.PlacementPlanInput;
};

export const PlacementPlanDocument: TypedDocument<PlacementPlanQuery, PlacementPlanQueryVariables> = {
  operationName: 'PlacementPlan',
  document: `query PlacementPlan($input: PlacementPlanInput!) {
  placementPlan(input: $input) {
    strategy
    replicas
    chosen {
      node
      reason
    }
    rejected {
      node
      reasons
    }
    unplaced
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type CreateDeploymentMutation = {
  readonly createDeployment: {
    readonly deploymentId: string;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly deployment: CliDeploymentFragment | null;
  };
};

export type CreateDeploymentMutationVariables = {
  readonly input: Schema.CreateDeploymentInput;
};

export const CreateDeploymentDocument: TypedDocument<
  CreateDeploymentMutation,
  CreateDeploymentMutationVariables
> = {
  operationName: 'CreateDeployment',
  document: `mutation CreateDeployment($input: CreateDeploymentInput!) {
  createDeployment(input: $input) {
    deploymentId
    workflowId
    temporalUiUrl
    correlationId
    deployment {
      ...CliDeployment
    }
  }
}

fragment CliDeployment on Deployment {
  id
  name
  modelRef
  purpose
  state
  stateReason
  desiredReplicas
  readyReplicas
  generation
  observedGeneration
  workflowId
  temporalUiUrl
  createdAt
  createdBy
  updatedAt
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
};

/** From libs/sdk/graphql/cli/fleet.graphql. */
export type StopDeploymentMutation = {
  readonly stopDeployment: {
    readonly deploymentId: string;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly deployment: CliDeploymentFragment | null;
  };
};

export type StopDeploymentMutationVariables = {
  readonly deployment: string;
};

export const StopDeploymentDocument: TypedDocument<StopDeploymentMutation, StopDeploymentMutationVariables> =
  {
    operationName: 'StopDeployment',
    document: `mutation StopDeployment($deployment: String!) {
  stopDeployment(deployment: $deployment) {
    deploymentId
    workflowId
    temporalUiUrl
    correlationId
    deployment {
      ...CliDeployment
    }
  }
}

fragment CliDeployment on Deployment {
  id
  name
  modelRef
  purpose
  state
  stateReason
  desiredReplicas
  readyReplicas
  generation
  observedGeneration
  workflowId
  temporalUiUrl
  createdAt
  createdBy
  updatedAt
  assignments {
    id
    deploymentId
    nodeId
    nodeName
    intent
    generation
    ackedGeneration
    observedGeneration
    observedState
    observedAt
    inFlight
    endpointPort
    leaseExpiresAt
    message
  }
}`,
  };

/** From libs/sdk/graphql/cli/healing.graphql. */
export type HealMutation = {
  readonly heal: {
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly plan: {
      readonly dryRun: boolean;
      readonly rules: {
        readonly crashLoopRestarts: number;
        readonly healthFailureThreshold: number;
        readonly nodeCrashThreshold: number;
        readonly nodeCrashWindowSeconds: number;
        readonly nodeCrashMinReplicas: number;
        readonly maxActionsPerPass: number;
        readonly cooldownSeconds: number;
      };
      readonly actions: readonly {
        readonly rule: string;
        readonly kind: string;
        readonly target: string;
        readonly nodeId: string;
        readonly deploymentId: string | null;
        readonly reason: string;
        readonly evidenceJson: string;
        readonly outcome: string | null;
        readonly receiptHash: string | null;
      }[];
      readonly skipped: readonly {
        readonly rule: string;
        readonly target: string;
        readonly reason: string;
      }[];
    };
  };
};

export type HealMutationVariables = {
  readonly input: Schema.HealInput;
};

export const HealDocument: TypedDocument<HealMutation, HealMutationVariables> = {
  operationName: 'Heal',
  document: `mutation Heal($input: HealInput!) {
  heal(input: $input) {
    workflowId
    temporalUiUrl
    correlationId
    plan {
      dryRun
      rules {
        crashLoopRestarts
        healthFailureThreshold
        nodeCrashThreshold
        nodeCrashWindowSeconds
        nodeCrashMinReplicas
        maxActionsPerPass
        cooldownSeconds
      }
      actions {
        rule
        kind
        target
        nodeId
        deploymentId
        reason
        evidenceJson
        outcome
        receiptHash
      }
      skipped {
        rule
        target
        reason
      }
    }
  }
}`,
};

/** From libs/sdk/graphql/cli/reconcile.graphql. */
export type ReconcileMutation = {
  readonly reconcileFleet: {
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly dryRun: boolean;
    readonly inSync: boolean;
    readonly receiptHash: string | null;
    readonly receiptSeq: number | null;
    readonly drift: readonly {
      readonly kind: string;
      readonly target: string;
      readonly deploymentId: string | null;
      readonly nodeId: string | null;
      readonly desired: string;
      readonly observed: string;
      readonly repair: string | null;
      readonly note: string;
    }[];
    readonly repairs: readonly {
      readonly kind: string;
      readonly target: string;
      readonly deploymentId: string;
      readonly fromGeneration: number | null;
      readonly toGeneration: number | null;
      readonly stop: boolean;
      readonly reason: string;
      readonly outcome: string;
    }[];
  };
};

export type ReconcileMutationVariables = {
  readonly input: Schema.ReconcileInput;
};

export const ReconcileDocument: TypedDocument<ReconcileMutation, ReconcileMutationVariables> = {
  operationName: 'Reconcile',
  document: `mutation Reconcile($input: ReconcileInput!) {
  reconcileFleet(input: $input) {
    workflowId
    temporalUiUrl
    correlationId
    dryRun
    inSync
    receiptHash
    receiptSeq
    drift {
      kind
      target
      deploymentId
      nodeId
      desired
      observed
      repair
      note
    }
    repairs {
      kind
      target
      deploymentId
      fromGeneration
      toGeneration
      stop
      reason
      outcome
    }
  }
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type ModelsQuery = {
  readonly models: readonly CliModelFragment[];
};

export type ModelsQueryVariables = Record<string, never>;

export const ModelsDocument: TypedDocument<ModelsQuery, ModelsQueryVariables> = {
  operationName: 'Models',
  document: `query Models {
  models {
    ...CliModel
  }
}

fragment CliModel on Model {
  id
  name
  displayName
  description
  createdBy
  createdAt
  updatedAt
  versions {
    ref
    state
  }
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type ModelQuery = {
  readonly model: CliModelFragment | null;
};

export type ModelQueryVariables = {
  readonly name: string;
};

export const ModelDocument: TypedDocument<ModelQuery, ModelQueryVariables> = {
  operationName: 'Model',
  document: `query Model($name: String!) {
  model(name: $name) {
    ...CliModel
  }
}

fragment CliModel on Model {
  id
  name
  displayName
  description
  createdBy
  createdAt
  updatedAt
  versions {
    ref
    state
  }
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type CreateModelMutation = {
  readonly createModel: CliModelFragment;
};

export type CreateModelMutationVariables = {
  readonly input: Schema.CreateModelInput;
};

export const CreateModelDocument: TypedDocument<CreateModelMutation, CreateModelMutationVariables> = {
  operationName: 'CreateModel',
  document: `mutation CreateModel($input: CreateModelInput!) {
  createModel(input: $input) {
    ...CliModel
  }
}

fragment CliModel on Model {
  id
  name
  displayName
  description
  createdBy
  createdAt
  updatedAt
  versions {
    ref
    state
  }
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type LicensesQuery = {
  readonly licenses: readonly CliLicenseFragment[];
};

export type LicensesQueryVariables = Record<string, never>;

export const LicensesDocument: TypedDocument<LicensesQuery, LicensesQueryVariables> = {
  operationName: 'Licenses',
  document: `query Licenses {
  licenses {
    ...CliLicense
  }
}

fragment CliLicense on License {
  id
  name
  kind
  spdxId
  customName
  termsUri
  termsDigest
  commercialUse
  allowedDataClasses
  attribution
  approvalState
  decidedBy
  decidedAt
  note
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type CreateLicenseMutation = {
  readonly createLicense: CliLicenseFragment;
};

export type CreateLicenseMutationVariables = {
  readonly input: Schema.CreateLicenseInput;
};

export const CreateLicenseDocument: TypedDocument<CreateLicenseMutation, CreateLicenseMutationVariables> = {
  operationName: 'CreateLicense',
  document: `mutation CreateLicense($input: CreateLicenseInput!) {
  createLicense(input: $input) {
    ...CliLicense
  }
}

fragment CliLicense on License {
  id
  name
  kind
  spdxId
  customName
  termsUri
  termsDigest
  commercialUse
  allowedDataClasses
  attribution
  approvalState
  decidedBy
  decidedAt
  note
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type ApproveLicenseMutation = {
  readonly license: CliLicenseFragment;
};

export type ApproveLicenseMutationVariables = {
  readonly name: string;
  readonly note: string;
};

export const ApproveLicenseDocument: TypedDocument<ApproveLicenseMutation, ApproveLicenseMutationVariables> =
  {
    operationName: 'ApproveLicense',
    document: `mutation ApproveLicense($name: String!, $note: String!) {
  license: approveLicense(name: $name, note: $note) {
    ...CliLicense
  }
}

fragment CliLicense on License {
  id
  name
  kind
  spdxId
  customName
  termsUri
  termsDigest
  commercialUse
  allowedDataClasses
  attribution
  approvalState
  decidedBy
  decidedAt
  note
  createdBy
  createdAt
}`,
  };

/** From libs/sdk/graphql/cli/registry.graphql. */
export type RejectLicenseMutation = {
  readonly license: CliLicenseFragment;
};

export type RejectLicenseMutationVariables = {
  readonly name: string;
  readonly note: string;
};

export const RejectLicenseDocument: TypedDocument<RejectLicenseMutation, RejectLicenseMutationVariables> = {
  operationName: 'RejectLicense',
  document: `mutation RejectLicense($name: String!, $note: String!) {
  license: rejectLicense(name: $name, note: $note) {
    ...CliLicense
  }
}

fragment CliLicense on License {
  id
  name
  kind
  spdxId
  customName
  termsUri
  termsDigest
  commercialUse
  allowedDataClasses
  attribution
  approvalState
  decidedBy
  decidedAt
  note
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type RuntimesQuery = {
  readonly runtimes: readonly CliRuntimeFragment[];
};

export type RuntimesQueryVariables = Record<string, never>;

export const RuntimesDocument: TypedDocument<RuntimesQuery, RuntimesQueryVariables> = {
  operationName: 'Runtimes',
  document: `query Runtimes {
  runtimes {
    ...CliRuntime
  }
}

fragment CliRuntime on Runtime {
  id
  name
  version
  kind
  allowed
  packaging {
    type
    image
    digest
  }
  launch {
    executable
    args
    envAllowlist
    containerPort
  }
  health {
    path
    startupTimeoutMs
    intervalMs
  }
  supportedHardware {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type RegisterRuntimeMutation = {
  readonly registerRuntime: CliRuntimeFragment;
};

export type RegisterRuntimeMutationVariables = {
  readonly input: Schema.RegisterRuntimeInput;
};

export const RegisterRuntimeDocument: TypedDocument<
  RegisterRuntimeMutation,
  RegisterRuntimeMutationVariables
> = {
  operationName: 'RegisterRuntime',
  document: `mutation RegisterRuntime($input: RegisterRuntimeInput!) {
  registerRuntime(input: $input) {
    ...CliRuntime
  }
}

fragment CliRuntime on Runtime {
  id
  name
  version
  kind
  allowed
  packaging {
    type
    image
    digest
  }
  launch {
    executable
    args
    envAllowlist
    containerPort
  }
  health {
    path
    startupTimeoutMs
    intervalMs
  }
  supportedHardware {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type SetRuntimeAllowedMutation = {
  readonly setRuntimeAllowed: CliRuntimeFragment;
};

export type SetRuntimeAllowedMutationVariables = {
  readonly id: string;
  readonly allowed: boolean;
};

export const SetRuntimeAllowedDocument: TypedDocument<
  SetRuntimeAllowedMutation,
  SetRuntimeAllowedMutationVariables
> = {
  operationName: 'SetRuntimeAllowed',
  document: `mutation SetRuntimeAllowed($id: ID!, $allowed: Boolean!) {
  setRuntimeAllowed(id: $id, allowed: $allowed) {
    ...CliRuntime
  }
}

fragment CliRuntime on Runtime {
  id
  name
  version
  kind
  allowed
  packaging {
    type
    image
    digest
  }
  launch {
    executable
    args
    envAllowlist
    containerPort
  }
  health {
    path
    startupTimeoutMs
    intervalMs
  }
  supportedHardware {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type RegistryModelVersionsQuery = {
  readonly modelVersions: readonly CliModelVersionFragment[];
};

export type RegistryModelVersionsQueryVariables = {
  readonly model?: string | null;
};

export const RegistryModelVersionsDocument: TypedDocument<
  RegistryModelVersionsQuery,
  RegistryModelVersionsQueryVariables
> = {
  operationName: 'RegistryModelVersions',
  document: `query RegistryModelVersions($model: String) {
  modelVersions(model: $model) {
    ...CliModelVersion
  }
}

fragment CliModelVersion on ModelVersion {
  id
  ref
  model
  version
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
  }
  runtimeEnv {
    name
    value
  }
  license {
    name
    approvalState
  }
  runtime {
    id
    allowed
  }
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type ModelVersionQuery = {
  readonly modelVersion: CliModelVersionFragment | null;
};

export type ModelVersionQueryVariables = {
  readonly ref: string;
};

export const ModelVersionDocument: TypedDocument<ModelVersionQuery, ModelVersionQueryVariables> = {
  operationName: 'ModelVersion',
  document: `query ModelVersion($ref: String!) {
  modelVersion(ref: $ref) {
    ...CliModelVersion
  }
}

fragment CliModelVersion on ModelVersion {
  id
  ref
  model
  version
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
  }
  runtimeEnv {
    name
    value
  }
  license {
    name
    approvalState
  }
  runtime {
    id
    allowed
  }
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type CreateModelVersionMutation = {
  readonly version: CliModelVersionFragment;
};

export type CreateModelVersionMutationVariables = {
  readonly input: Schema.CreateModelVersionInput;
};

export const CreateModelVersionDocument: TypedDocument<
  CreateModelVersionMutation,
  CreateModelVersionMutationVariables
> = {
  operationName: 'CreateModelVersion',
  document: `mutation CreateModelVersion($input: CreateModelVersionInput!) {
  version: createModelVersion(input: $input) {
    ...CliModelVersion
  }
}

fragment CliModelVersion on ModelVersion {
  id
  ref
  model
  version
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
  }
  runtimeEnv {
    name
    value
  }
  license {
    name
    approvalState
  }
  runtime {
    id
    allowed
  }
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type VerifyModelVersionMutation = {
  readonly version: CliModelVersionFragment;
};

export type VerifyModelVersionMutationVariables = {
  readonly ref: string;
};

export const VerifyModelVersionDocument: TypedDocument<
  VerifyModelVersionMutation,
  VerifyModelVersionMutationVariables
> = {
  operationName: 'VerifyModelVersion',
  document: `mutation VerifyModelVersion($ref: String!) {
  version: verifyModelVersion(ref: $ref) {
    ...CliModelVersion
  }
}

fragment CliModelVersion on ModelVersion {
  id
  ref
  model
  version
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
  }
  runtimeEnv {
    name
    value
  }
  license {
    name
    approvalState
  }
  runtime {
    id
    allowed
  }
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type ApproveModelVersionMutation = {
  readonly version: CliModelVersionFragment;
};

export type ApproveModelVersionMutationVariables = {
  readonly ref: string;
  readonly note?: string | null;
};

export const ApproveModelVersionDocument: TypedDocument<
  ApproveModelVersionMutation,
  ApproveModelVersionMutationVariables
> = {
  operationName: 'ApproveModelVersion',
  document: `mutation ApproveModelVersion($ref: String!, $note: String) {
  version: approveModelVersion(ref: $ref, note: $note) {
    ...CliModelVersion
  }
}

fragment CliModelVersion on ModelVersion {
  id
  ref
  model
  version
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
  }
  runtimeEnv {
    name
    value
  }
  license {
    name
    approvalState
  }
  runtime {
    id
    allowed
  }
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type DeprecateModelVersionMutation = {
  readonly version: CliModelVersionFragment;
};

export type DeprecateModelVersionMutationVariables = {
  readonly ref: string;
  readonly reason: string;
};

export const DeprecateModelVersionDocument: TypedDocument<
  DeprecateModelVersionMutation,
  DeprecateModelVersionMutationVariables
> = {
  operationName: 'DeprecateModelVersion',
  document: `mutation DeprecateModelVersion($ref: String!, $reason: String!) {
  version: deprecateModelVersion(ref: $ref, reason: $reason) {
    ...CliModelVersion
  }
}

fragment CliModelVersion on ModelVersion {
  id
  ref
  model
  version
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
  }
  runtimeEnv {
    name
    value
  }
  license {
    name
    approvalState
  }
  runtime {
    id
    allowed
  }
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type ReinstateModelVersionMutation = {
  readonly version: CliModelVersionFragment;
};

export type ReinstateModelVersionMutationVariables = {
  readonly ref: string;
  readonly note?: string | null;
};

export const ReinstateModelVersionDocument: TypedDocument<
  ReinstateModelVersionMutation,
  ReinstateModelVersionMutationVariables
> = {
  operationName: 'ReinstateModelVersion',
  document: `mutation ReinstateModelVersion($ref: String!, $note: String) {
  version: reinstateModelVersion(ref: $ref, note: $note) {
    ...CliModelVersion
  }
}

fragment CliModelVersion on ModelVersion {
  id
  ref
  model
  version
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
  }
  runtimeEnv {
    name
    value
  }
  license {
    name
    approvalState
  }
  runtime {
    id
    allowed
  }
}`,
};

/** From libs/sdk/graphql/cli/registry.graphql. */
export type RetireModelVersionMutation = {
  readonly version: CliModelVersionFragment;
};

export type RetireModelVersionMutationVariables = {
  readonly ref: string;
  readonly reason: string;
  readonly withdraw?: boolean | null;
};

export const RetireModelVersionDocument: TypedDocument<
  RetireModelVersionMutation,
  RetireModelVersionMutationVariables
> = {
  operationName: 'RetireModelVersion',
  document: `mutation RetireModelVersion($ref: String!, $reason: String!, $withdraw: Boolean) {
  version: retireModelVersion(ref: $ref, reason: $reason, withdraw: $withdraw) {
    ...CliModelVersion
  }
}

fragment CliModelVersion on ModelVersion {
  id
  ref
  model
  version
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
  }
  runtimeEnv {
    name
    value
  }
  license {
    name
    approvalState
  }
  runtime {
    id
    allowed
  }
}`,
};

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export type AliasesQuery = {
  readonly aliases: readonly CliAliasFragment[];
};

export type AliasesQueryVariables = Record<string, never>;

export const AliasesDocument: TypedDocument<AliasesQuery, AliasesQueryVariables> = {
  operationName: 'Aliases',
  document: `query Aliases {
  aliases {
    ...CliAlias
  }
}

fragment CliAlias on Alias {
  id
  name
  description
  dataClass
  currentRevision
  canaryWeight
  canaryDeploymentId
  current {
    revision
    modelRef
    deploymentId
    deploymentName
    reason
    restoredFrom
  }
  revisions {
    revision
    modelRef
    deploymentId
    deploymentName
    reason
    restoredFrom
    rolloutId
    createdBy
    createdAt
  }
  activeRollout {
    id
    state
    currentWeight
  }
}`,
};

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export type AliasQuery = {
  readonly alias: CliAliasFragment | null;
};

export type AliasQueryVariables = {
  readonly alias: string;
};

export const AliasDocument: TypedDocument<AliasQuery, AliasQueryVariables> = {
  operationName: 'Alias',
  document: `query Alias($alias: String!) {
  alias(alias: $alias) {
    ...CliAlias
  }
}

fragment CliAlias on Alias {
  id
  name
  description
  dataClass
  currentRevision
  canaryWeight
  canaryDeploymentId
  current {
    revision
    modelRef
    deploymentId
    deploymentName
    reason
    restoredFrom
  }
  revisions {
    revision
    modelRef
    deploymentId
    deploymentName
    reason
    restoredFrom
    rolloutId
    createdBy
    createdAt
  }
  activeRollout {
    id
    state
    currentWeight
  }
}`,
};

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export type CreateAliasMutation = {
  readonly createAlias: CliAliasFragment;
};

export type CreateAliasMutationVariables = {
  readonly input: Schema.CreateAliasInput;
};

export const CreateAliasDocument: TypedDocument<CreateAliasMutation, CreateAliasMutationVariables> = {
  operationName: 'CreateAlias',
  document: `mutation CreateAlias($input: CreateAliasInput!) {
  createAlias(input: $input) {
    ...CliAlias
  }
}

fragment CliAlias on Alias {
  id
  name
  description
  dataClass
  currentRevision
  canaryWeight
  canaryDeploymentId
  current {
    revision
    modelRef
    deploymentId
    deploymentName
    reason
    restoredFrom
  }
  revisions {
    revision
    modelRef
    deploymentId
    deploymentName
    reason
    restoredFrom
    rolloutId
    createdBy
    createdAt
  }
  activeRollout {
    id
    state
    currentWeight
  }
}`,
};

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export type RolloutsQuery = {
  readonly rollouts: readonly CliRolloutFragment[];
};

export type RolloutsQueryVariables = {
  readonly alias?: string | null;
  readonly limit?: number | null;
};

export const RolloutsDocument: TypedDocument<RolloutsQuery, RolloutsQueryVariables> = {
  operationName: 'Rollouts',
  document: `query Rollouts($alias: String, $limit: Int) {
  rollouts(alias: $alias, limit: $limit) {
    ...CliRollout
  }
}

fragment CliRollout on Rollout {
  id
  alias
  modelRef
  baseRevision
  state
  stateReason
  refusalCode
  steps
  currentStep
  currentWeight
  canaryDeploymentId
  workflowId
  temporalUiUrl
  createdBy
  createdAt
  finishedAt
  analyses {
    step
    weight
    window
    verdict
    reasons
    canaryRequests
    canaryErrors
    canaryErrorRate
    canaryP95Ms
    stableRequests
    stableErrorRate
    stableP95Ms
  }
  receipts {
    seq
    action
    result
    evidenceJson
    hash
    occurredAt
  }
}`,
};

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export type RolloutQuery = {
  readonly rollout: CliRolloutFragment | null;
};

export type RolloutQueryVariables = {
  readonly id: string;
};

export const RolloutDocument: TypedDocument<RolloutQuery, RolloutQueryVariables> = {
  operationName: 'Rollout',
  document: `query Rollout($id: ID!) {
  rollout(id: $id) {
    ...CliRollout
  }
}

fragment CliRollout on Rollout {
  id
  alias
  modelRef
  baseRevision
  state
  stateReason
  refusalCode
  steps
  currentStep
  currentWeight
  canaryDeploymentId
  workflowId
  temporalUiUrl
  createdBy
  createdAt
  finishedAt
  analyses {
    step
    weight
    window
    verdict
    reasons
    canaryRequests
    canaryErrors
    canaryErrorRate
    canaryP95Ms
    stableRequests
    stableErrorRate
    stableP95Ms
  }
  receipts {
    seq
    action
    result
    evidenceJson
    hash
    occurredAt
  }
}`,
};

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export type StartRolloutMutation = {
  readonly startRollout: {
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly rollout: CliRolloutFragment;
  };
};

export type StartRolloutMutationVariables = {
  readonly input: Schema.StartRolloutInput;
};

export const StartRolloutDocument: TypedDocument<StartRolloutMutation, StartRolloutMutationVariables> = {
  operationName: 'StartRollout',
  document: `mutation StartRollout($input: StartRolloutInput!) {
  startRollout(input: $input) {
    workflowId
    temporalUiUrl
    correlationId
    rollout {
      ...CliRollout
    }
  }
}

fragment CliRollout on Rollout {
  id
  alias
  modelRef
  baseRevision
  state
  stateReason
  refusalCode
  steps
  currentStep
  currentWeight
  canaryDeploymentId
  workflowId
  temporalUiUrl
  createdBy
  createdAt
  finishedAt
  analyses {
    step
    weight
    window
    verdict
    reasons
    canaryRequests
    canaryErrors
    canaryErrorRate
    canaryP95Ms
    stableRequests
    stableErrorRate
    stableP95Ms
  }
  receipts {
    seq
    action
    result
    evidenceJson
    hash
    occurredAt
  }
}`,
};

/** From libs/sdk/graphql/cli/rollouts.graphql. */
export type SignalRolloutMutation = {
  readonly signalRollout: CliRolloutFragment;
};

export type SignalRolloutMutationVariables = {
  readonly rollout: string;
  readonly action: Schema.RolloutAction;
  readonly reason?: string | null;
};

export const SignalRolloutDocument: TypedDocument<SignalRolloutMutation, SignalRolloutMutationVariables> = {
  operationName: 'SignalRollout',
  document: `mutation SignalRollout($rollout: ID!, $action: RolloutAction!, $reason: String) {
  signalRollout(rollout: $rollout, action: $action, reason: $reason) {
    ...CliRollout
  }
}

fragment CliRollout on Rollout {
  id
  alias
  modelRef
  baseRevision
  state
  stateReason
  refusalCode
  steps
  currentStep
  currentWeight
  canaryDeploymentId
  workflowId
  temporalUiUrl
  createdBy
  createdAt
  finishedAt
  analyses {
    step
    weight
    window
    verdict
    reasons
    canaryRequests
    canaryErrors
    canaryErrorRate
    canaryP95Ms
    stableRequests
    stableErrorRate
    stableP95Ms
  }
  receipts {
    seq
    action
    result
    evidenceJson
    hash
    occurredAt
  }
}`,
};

/** From libs/sdk/graphql/cli/signing.graphql. */
export type TrustedSigningKeysQuery = {
  readonly trustedSigningKeys: readonly CliTrustedSigningKeyFragment[];
};

export type TrustedSigningKeysQueryVariables = Record<string, never>;

export const TrustedSigningKeysDocument: TypedDocument<
  TrustedSigningKeysQuery,
  TrustedSigningKeysQueryVariables
> = {
  operationName: 'TrustedSigningKeys',
  document: `query TrustedSigningKeys {
  trustedSigningKeys {
    ...CliTrustedSigningKey
  }
}

fragment CliTrustedSigningKey on TrustedSigningKey {
  keyId
  algorithm
  publicKey
  label
  createdBy
  createdAt
  revokedAt
  revokedBy
}`,
};

/** From libs/sdk/graphql/cli/signing.graphql. */
export type RegisterSigningKeyMutation = {
  readonly registerSigningKey: CliTrustedSigningKeyFragment;
};

export type RegisterSigningKeyMutationVariables = {
  readonly input: Schema.RegisterSigningKeyInput;
};

export const RegisterSigningKeyDocument: TypedDocument<
  RegisterSigningKeyMutation,
  RegisterSigningKeyMutationVariables
> = {
  operationName: 'RegisterSigningKey',
  document: `mutation RegisterSigningKey($input: RegisterSigningKeyInput!) {
  registerSigningKey(input: $input) {
    ...CliTrustedSigningKey
  }
}

fragment CliTrustedSigningKey on TrustedSigningKey {
  keyId
  algorithm
  publicKey
  label
  createdBy
  createdAt
  revokedAt
  revokedBy
}`,
};

/** From libs/sdk/graphql/cli/signing.graphql. */
export type RevokeSigningKeyMutation = {
  readonly revokeSigningKey: CliTrustedSigningKeyFragment;
};

export type RevokeSigningKeyMutationVariables = {
  readonly keyId: string;
};

export const RevokeSigningKeyDocument: TypedDocument<
  RevokeSigningKeyMutation,
  RevokeSigningKeyMutationVariables
> = {
  operationName: 'RevokeSigningKey',
  document: `mutation RevokeSigningKey($keyId: String!) {
  revokeSigningKey(keyId: $keyId) {
    ...CliTrustedSigningKey
  }
}

fragment CliTrustedSigningKey on TrustedSigningKey {
  keyId
  algorithm
  publicKey
  label
  createdBy
  createdAt
  revokedAt
  revokedBy
}`,
};

/** From libs/sdk/graphql/cli/signing.graphql. */
export type SetTenantUnsignedPolicyMutation = {
  readonly setTenantUnsignedPolicy: {
    readonly tenantId: string;
    readonly allowUnsignedVersions: boolean;
  };
};

export type SetTenantUnsignedPolicyMutationVariables = {
  readonly tenantId: string;
  readonly allow: boolean;
};

export const SetTenantUnsignedPolicyDocument: TypedDocument<
  SetTenantUnsignedPolicyMutation,
  SetTenantUnsignedPolicyMutationVariables
> = {
  operationName: 'SetTenantUnsignedPolicy',
  document: `mutation SetTenantUnsignedPolicy($tenantId: String!, $allow: Boolean!) {
  setTenantUnsignedPolicy(tenantId: $tenantId, allowUnsignedVersions: $allow) {
    tenantId
    allowUnsignedVersions
  }
}`,
};

/** From libs/sdk/graphql/cli/status.graphql. */
export type HealthQuery = {
  readonly health: {
    readonly status: string;
    readonly version: string;
    readonly commit: string;
    readonly checks: readonly {
      readonly name: string;
      readonly status: string;
      readonly detail: string | null;
      readonly latencyMs: number | null;
    }[];
  };
};

export type HealthQueryVariables = Record<string, never>;

export const HealthDocument: TypedDocument<HealthQuery, HealthQueryVariables> = {
  operationName: 'Health',
  document: `query Health {
  health {
    status
    version
    commit
    checks {
      name
      status
      detail
      latencyMs
    }
  }
}`,
};

/** From libs/sdk/graphql/cli/status.graphql. */
export type PingMutation = {
  readonly ping: {
    readonly workflowId: string;
    readonly runId: string;
    readonly pingId: string;
    readonly message: string;
    readonly correlationId: string;
    readonly temporalUiUrl: string;
    readonly receiptHash: string;
  };
};

export type PingMutationVariables = {
  readonly input: Schema.PingInput;
};

export const PingDocument: TypedDocument<PingMutation, PingMutationVariables> = {
  operationName: 'Ping',
  document: `mutation Ping($input: PingInput!) {
  ping(input: $input) {
    workflowId
    runId
    pingId
    message
    correlationId
    temporalUiUrl
    receiptHash
  }
}`,
};

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export type TenantsQuery = {
  readonly tenants: readonly CliTenantFragment[];
};

export type TenantsQueryVariables = Record<string, never>;

export const TenantsDocument: TypedDocument<TenantsQuery, TenantsQueryVariables> = {
  operationName: 'Tenants',
  document: `query Tenants {
  tenants {
    ...CliTenant
  }
}

fragment CliTenant on Tenant {
  id
  displayName
  quota {
    requestsPerMinute
    tokensPerMinute
    maxConcurrentRequests
  }
  keyCount
  activeKeyCount
  createdBy
  createdAt
  updatedBy
  updatedAt
}`,
};

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export type TenantQuery = {
  readonly tenant: CliTenantFragment | null;
  readonly gatewayKeys: readonly CliGatewayKeyFragment[];
};

export type TenantQueryVariables = {
  readonly id: string;
};

export const TenantDocument: TypedDocument<TenantQuery, TenantQueryVariables> = {
  operationName: 'Tenant',
  document: `query Tenant($id: String!) {
  tenant(id: $id) {
    ...CliTenant
  }
  gatewayKeys(tenantId: $id, includeRevoked: true) {
    ...CliGatewayKey
  }
}

fragment CliTenant on Tenant {
  id
  displayName
  quota {
    requestsPerMinute
    tokensPerMinute
    maxConcurrentRequests
  }
  keyCount
  activeKeyCount
  createdBy
  createdAt
  updatedBy
  updatedAt
}

fragment CliGatewayKey on GatewayKey {
  id
  tenantId
  name
  prefix
  aliases
  state
  createdBy
  createdAt
  expiresAt
  revokedAt
  revokedBy
  lastUsedAt
}`,
};

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export type CreateTenantMutation = {
  readonly createTenant: CliTenantFragment;
};

export type CreateTenantMutationVariables = {
  readonly input: Schema.CreateTenantInput;
};

export const CreateTenantDocument: TypedDocument<CreateTenantMutation, CreateTenantMutationVariables> = {
  operationName: 'CreateTenant',
  document: `mutation CreateTenant($input: CreateTenantInput!) {
  createTenant(input: $input) {
    ...CliTenant
  }
}

fragment CliTenant on Tenant {
  id
  displayName
  quota {
    requestsPerMinute
    tokensPerMinute
    maxConcurrentRequests
  }
  keyCount
  activeKeyCount
  createdBy
  createdAt
  updatedBy
  updatedAt
}`,
};

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export type UpdateTenantMutation = {
  readonly updateTenant: CliTenantFragment;
};

export type UpdateTenantMutationVariables = {
  readonly input: Schema.UpdateTenantInput;
};

export const UpdateTenantDocument: TypedDocument<UpdateTenantMutation, UpdateTenantMutationVariables> = {
  operationName: 'UpdateTenant',
  document: `mutation UpdateTenant($input: UpdateTenantInput!) {
  updateTenant(input: $input) {
    ...CliTenant
  }
}

fragment CliTenant on Tenant {
  id
  displayName
  quota {
    requestsPerMinute
    tokensPerMinute
    maxConcurrentRequests
  }
  keyCount
  activeKeyCount
  createdBy
  createdAt
  updatedBy
  updatedAt
}`,
};

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export type GatewayKeysQuery = {
  readonly gatewayKeys: readonly CliGatewayKeyFragment[];
};

export type GatewayKeysQueryVariables = {
  readonly tenantId: string;
  readonly includeRevoked?: boolean | null;
};

export const GatewayKeysDocument: TypedDocument<GatewayKeysQuery, GatewayKeysQueryVariables> = {
  operationName: 'GatewayKeys',
  document: `query GatewayKeys($tenantId: String!, $includeRevoked: Boolean) {
  gatewayKeys(tenantId: $tenantId, includeRevoked: $includeRevoked) {
    ...CliGatewayKey
  }
}

fragment CliGatewayKey on GatewayKey {
  id
  tenantId
  name
  prefix
  aliases
  state
  createdBy
  createdAt
  expiresAt
  revokedAt
  revokedBy
  lastUsedAt
}`,
};

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export type CreateGatewayKeyMutation = {
  readonly createGatewayKey: {
    readonly secret: string;
    readonly key: CliGatewayKeyFragment;
  };
};

export type CreateGatewayKeyMutationVariables = {
  readonly input: Schema.CreateGatewayKeyInput;
};

export const CreateGatewayKeyDocument: TypedDocument<
  CreateGatewayKeyMutation,
  CreateGatewayKeyMutationVariables
> = {
  operationName: 'CreateGatewayKey',
  document: `mutation CreateGatewayKey($input: CreateGatewayKeyInput!) {
  createGatewayKey(input: $input) {
    secret
    key {
      ...CliGatewayKey
    }
  }
}

fragment CliGatewayKey on GatewayKey {
  id
  tenantId
  name
  prefix
  aliases
  state
  createdBy
  createdAt
  expiresAt
  revokedAt
  revokedBy
  lastUsedAt
}`,
};

/** From libs/sdk/graphql/cli/tenancy.graphql. */
export type RevokeGatewayKeyMutation = {
  readonly revokeGatewayKey: CliGatewayKeyFragment;
};

export type RevokeGatewayKeyMutationVariables = {
  readonly id: string;
};

export const RevokeGatewayKeyDocument: TypedDocument<
  RevokeGatewayKeyMutation,
  RevokeGatewayKeyMutationVariables
> = {
  operationName: 'RevokeGatewayKey',
  document: `mutation RevokeGatewayKey($id: ID!) {
  revokeGatewayKey(id: $id) {
    ...CliGatewayKey
  }
}

fragment CliGatewayKey on GatewayKey {
  id
  tenantId
  name
  prefix
  aliases
  state
  createdBy
  createdAt
  expiresAt
  revokedAt
  revokedBy
  lastUsedAt
}`,
};

/** From libs/sdk/graphql/console/access.graphql. */
export type ConsoleOperatorsQuery = {
  readonly operators: readonly ConsoleOperatorFragment[];
};

export type ConsoleOperatorsQueryVariables = Record<string, never>;

export const ConsoleOperatorsDocument: TypedDocument<ConsoleOperatorsQuery, ConsoleOperatorsQueryVariables> =
  {
    operationName: 'ConsoleOperators',
    document: `query ConsoleOperators {
  operators {
    ...ConsoleOperator
  }
}

fragment ConsoleOperator on Operator {
  id
  username
  role
  disabledAt
  createdAt
}`,
  };

/** From libs/sdk/graphql/console/access.graphql. */
export type ConsoleCreateOperatorMutation = {
  readonly createOperator: ConsoleOperatorFragment;
};

export type ConsoleCreateOperatorMutationVariables = {
  readonly input: Schema.CreateOperatorInput;
};

export const ConsoleCreateOperatorDocument: TypedDocument<
  ConsoleCreateOperatorMutation,
  ConsoleCreateOperatorMutationVariables
> = {
  operationName: 'ConsoleCreateOperator',
  document: `mutation ConsoleCreateOperator($input: CreateOperatorInput!) {
  createOperator(input: $input) {
    ...ConsoleOperator
  }
}

fragment ConsoleOperator on Operator {
  id
  username
  role
  disabledAt
  createdAt
}`,
};

/** From libs/sdk/graphql/console/access.graphql. */
export type ConsoleResetOperatorPasswordMutation = {
  readonly resetOperatorPassword: ConsoleOperatorFragment;
};

export type ConsoleResetOperatorPasswordMutationVariables = {
  readonly input: Schema.ResetOperatorPasswordInput;
};

export const ConsoleResetOperatorPasswordDocument: TypedDocument<
  ConsoleResetOperatorPasswordMutation,
  ConsoleResetOperatorPasswordMutationVariables
> = {
  operationName: 'ConsoleResetOperatorPassword',
  document: `mutation ConsoleResetOperatorPassword($input: ResetOperatorPasswordInput!) {
  resetOperatorPassword(input: $input) {
    ...ConsoleOperator
  }
}

fragment ConsoleOperator on Operator {
  id
  username
  role
  disabledAt
  createdAt
}`,
};

/** From libs/sdk/graphql/console/access.graphql. */
export type ConsoleEndOperatorSessionsMutation = {
  readonly endOperatorSessions: ConsoleOperatorFragment;
};

export type ConsoleEndOperatorSessionsMutationVariables = {
  readonly id: string;
};

export const ConsoleEndOperatorSessionsDocument: TypedDocument<
  ConsoleEndOperatorSessionsMutation,
  ConsoleEndOperatorSessionsMutationVariables
> = {
  operationName: 'ConsoleEndOperatorSessions',
  document: `mutation ConsoleEndOperatorSessions($id: ID!) {
  endOperatorSessions(id: $id) {
    ...ConsoleOperator
  }
}

fragment ConsoleOperator on Operator {
  id
  username
  role
  disabledAt
  createdAt
}`,
};

/** From libs/sdk/graphql/console/access.graphql. */
export type ConsoleDisableOperatorMutation = {
  readonly disableOperator: ConsoleOperatorFragment;
};

export type ConsoleDisableOperatorMutationVariables = {
  readonly id: string;
};

export const ConsoleDisableOperatorDocument: TypedDocument<
  ConsoleDisableOperatorMutation,
  ConsoleDisableOperatorMutationVariables
> = {
  operationName: 'ConsoleDisableOperator',
  document: `mutation ConsoleDisableOperator($id: ID!) {
  disableOperator(id: $id) {
    ...ConsoleOperator
  }
}

fragment ConsoleOperator on Operator {
  id
  username
  role
  disabledAt
  createdAt
}`,
};

/** From libs/sdk/graphql/console/access.graphql. */
export type ConsoleApiTokensQuery = {
  readonly apiTokens: readonly ConsoleApiTokenFragment[];
};

export type ConsoleApiTokensQueryVariables = Record<string, never>;

export const ConsoleApiTokensDocument: TypedDocument<ConsoleApiTokensQuery, ConsoleApiTokensQueryVariables> =
  {
    operationName: 'ConsoleApiTokens',
    document: `query ConsoleApiTokens {
  apiTokens {
    ...ConsoleApiToken
  }
}

fragment ConsoleApiToken on ApiToken {
  id
  name
  prefix
  role
  ownerUsername
  createdAt
  expiresAt
  lastUsedAt
  revokedAt
}`,
  };

/** From libs/sdk/graphql/console/access.graphql. */
export type ConsoleCreateApiTokenMutation = {
  readonly createApiToken: {
    readonly token: string;
    readonly apiToken: ConsoleApiTokenFragment;
  };
};

export type ConsoleCreateApiTokenMutationVariables = {
  readonly input: Schema.CreateApiTokenInput;
};

export const ConsoleCreateApiTokenDocument: TypedDocument<
  ConsoleCreateApiTokenMutation,
  ConsoleCreateApiTokenMutationVariables
> = {
  operationName: 'ConsoleCreateApiToken',
  document: `mutation ConsoleCreateApiToken($input: CreateApiTokenInput!) {
  createApiToken(input: $input) {
    token
    apiToken {
      ...ConsoleApiToken
    }
  }
}

fragment ConsoleApiToken on ApiToken {
  id
  name
  prefix
  role
  ownerUsername
  createdAt
  expiresAt
  lastUsedAt
  revokedAt
}`,
};

/** From libs/sdk/graphql/console/access.graphql. */
export type ConsoleRevokeApiTokenMutation = {
  readonly revokeApiToken: ConsoleApiTokenFragment;
};

export type ConsoleRevokeApiTokenMutationVariables = {
  readonly id: string;
};

export const ConsoleRevokeApiTokenDocument: TypedDocument<
  ConsoleRevokeApiTokenMutation,
  ConsoleRevokeApiTokenMutationVariables
> = {
  operationName: 'ConsoleRevokeApiToken',
  document: `mutation ConsoleRevokeApiToken($id: ID!) {
  revokeApiToken(id: $id) {
    ...ConsoleApiToken
  }
}

fragment ConsoleApiToken on ApiToken {
  id
  name
  prefix
  role
  ownerUsername
  createdAt
  expiresAt
  lastUsedAt
  revokedAt
}`,
};

/** From libs/sdk/graphql/console/access.graphql. */
export type ConsoleBootstrapTokensQuery = {
  readonly bootstrapTokens: readonly {
    readonly id: string;
    readonly prefix: string;
    readonly nodeName: string | null;
    readonly autoApprove: boolean;
    readonly createdBy: string;
    readonly createdAt: Schema.DateTimeString;
    readonly expiresAt: Schema.DateTimeString;
    readonly usedAt: Schema.DateTimeString | null;
    readonly revokedAt: Schema.DateTimeString | null;
  }[];
};

export type ConsoleBootstrapTokensQueryVariables = Record<string, never>;

export const ConsoleBootstrapTokensDocument: TypedDocument<
  ConsoleBootstrapTokensQuery,
  ConsoleBootstrapTokensQueryVariables
> = {
  operationName: 'ConsoleBootstrapTokens',
  document: `query ConsoleBootstrapTokens {
  bootstrapTokens {
    id
    prefix
    nodeName
    autoApprove
    createdBy
    createdAt
    expiresAt
    usedAt
    revokedAt
  }
}`,
};

/** From libs/sdk/graphql/console/access.graphql. */
export type ConsoleRevokeBootstrapTokenMutation = {
  readonly revokeBootstrapToken: {
    readonly id: string;
    readonly prefix: string;
    readonly revokedAt: Schema.DateTimeString | null;
  };
};

export type ConsoleRevokeBootstrapTokenMutationVariables = {
  readonly id: string;
};

export const ConsoleRevokeBootstrapTokenDocument: TypedDocument<
  ConsoleRevokeBootstrapTokenMutation,
  ConsoleRevokeBootstrapTokenMutationVariables
> = {
  operationName: 'ConsoleRevokeBootstrapToken',
  document: `mutation ConsoleRevokeBootstrapToken($id: ID!) {
  revokeBootstrapToken(id: $id) {
    id
    prefix
    revokedAt
  }
}`,
};

/** From libs/sdk/graphql/console/audit.graphql. */
export type ConsoleAuditEventsQuery = {
  readonly auditEvents: {
    readonly nextBefore: number | null;
    readonly events: readonly {
      readonly seq: number;
      readonly occurredAt: Schema.DateTimeString;
      readonly actor: string;
      readonly action: string;
      readonly decision: string;
      readonly result: string;
      readonly correlationId: string;
      readonly workflowId: string | null;
      readonly temporalUiUrl: string | null;
    }[];
  };
};

export type ConsoleAuditEventsQueryVariables = {
  readonly filter?: Schema.AuditEventFilter | null;
  readonly first?: number | null;
  readonly before?: number | null;
};

export const ConsoleAuditEventsDocument: TypedDocument<
  ConsoleAuditEventsQuery,
  ConsoleAuditEventsQueryVariables
> = {
  operationName: 'ConsoleAuditEvents',
  document: `query ConsoleAuditEvents($filter: AuditEventFilter, $first: Int, $before: Int) {
  auditEvents(filter: $filter, first: $first, before: $before) {
    nextBefore
    events {
      seq
      occurredAt
      actor
      action
      decision
      result
      correlationId
      workflowId
      temporalUiUrl
    }
  }
}`,
};

/** From libs/sdk/graphql/console/audit.graphql. */
export type ConsoleAuditEventQuery = {
  readonly auditEvent: {
    readonly seq: number;
    readonly id: string;
    readonly occurredAt: Schema.DateTimeString;
    readonly actor: string;
    readonly action: string;
    readonly decision: string;
    readonly result: string;
    readonly correlationId: string;
    readonly workflowId: string | null;
    readonly temporalUiUrl: string | null;
    readonly evidenceJson: string;
    readonly hash: string;
    readonly prevHash: string;
    readonly chain: {
      readonly verified: boolean;
      readonly reason: string | null;
    } | null;
  } | null;
};

export type ConsoleAuditEventQueryVariables = {
  readonly seq: number;
};

export const ConsoleAuditEventDocument: TypedDocument<
  ConsoleAuditEventQuery,
  ConsoleAuditEventQueryVariables
> = {
  operationName: 'ConsoleAuditEvent',
  document: `query ConsoleAuditEvent($seq: Int!) {
  auditEvent(seq: $seq) {
    seq
    id
    occurredAt
    actor
    action
    decision
    result
    correlationId
    workflowId
    temporalUiUrl
    evidenceJson
    hash
    prevHash
    chain {
      verified
      reason
    }
  }
}`,
};

/** From libs/sdk/graphql/console/audit.graphql. */
export type ConsoleAuditChainStatusQuery = {
  readonly auditChainStatus: {
    readonly valid: boolean;
    readonly checked: number;
    readonly firstBrokenSeq: number | null;
    readonly reason: string | null;
  };
};

export type ConsoleAuditChainStatusQueryVariables = Record<string, never>;

export const ConsoleAuditChainStatusDocument: TypedDocument<
  ConsoleAuditChainStatusQuery,
  ConsoleAuditChainStatusQueryVariables
> = {
  operationName: 'ConsoleAuditChainStatus',
  document: `query ConsoleAuditChainStatus {
  auditChainStatus {
    valid
    checked
    firstBrokenSeq
    reason
  }
}`,
};

/** From libs/sdk/graphql/console/benchmarks.graphql. */
export type ConsoleBenchmarkChoicesQuery = {
  readonly benchmarkProfiles: readonly {
    readonly id: string;
    readonly name: string;
    readonly description: string | null;
    readonly concurrency: number;
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly durationSeconds: number | null;
    readonly requestCount: number | null;
    readonly maxErrorRate: number | null;
    readonly maxTtftP95Ms: number | null;
    readonly minTokensPerSecond: number | null;
  }[];
  readonly modelVersions: readonly {
    readonly id: string;
    readonly ref: string;
    readonly state: string;
  }[];
  readonly deployments: readonly {
    readonly id: string;
    readonly name: string;
    readonly modelRef: string;
    readonly state: string;
  }[];
};

export type ConsoleBenchmarkChoicesQueryVariables = Record<string, never>;

export const ConsoleBenchmarkChoicesDocument: TypedDocument<
  ConsoleBenchmarkChoicesQuery,
  ConsoleBenchmarkChoicesQueryVariables
> = {
  operationName: 'ConsoleBenchmarkChoices',
  document: `query ConsoleBenchmarkChoices {
  benchmarkProfiles {
    id
    name
    description
    concurrency
    inputTokens
    outputTokens
    durationSeconds
    requestCount
    maxErrorRate
    maxTtftP95Ms
    minTokensPerSecond
  }
  modelVersions {
    id
    ref
    state
  }
  deployments {
    id
    name
    modelRef
    state
  }
}`,
};

/** From libs/sdk/graphql/console/benchmarks.graphql. */
export type ConsoleBenchmarkComparisonQuery = {
  readonly benchmarkComparison: {
    readonly profile: string;
    readonly profileDigest: string;
    readonly baseline: string;
    readonly regressed: boolean;
    readonly thresholds: {
      readonly maxTtftP95Increase: number;
      readonly ttftSlackMs: number;
      readonly maxTokensPerSecondDrop: number;
      readonly maxErrorRateIncrease: number;
      readonly maxPassRateDrop: number;
    };
    readonly entries: readonly {
      readonly modelRef: string;
      readonly modelVersionId: string;
      readonly baseline: boolean;
      readonly passRate: number | null;
      readonly ttftP50Ms: number | null;
      readonly ttftP95Ms: number | null;
      readonly ttftP99Ms: number | null;
      readonly tokensPerSecond: number | null;
      readonly errorRate: number | null;
      readonly sameSuiteAsBaseline: boolean;
      readonly regressed: boolean;
      readonly regressions: readonly {
        readonly metric: string;
        readonly baseline: number;
        readonly candidate: number;
        readonly reason: string;
      }[];
      readonly run: {
        readonly id: string;
        readonly suite: string;
        readonly finishedAt: string | null;
        readonly workflowId: string;
        readonly temporalUiUrl: string;
      } | null;
    }[];
  };
};

export type ConsoleBenchmarkComparisonQueryVariables = {
  readonly profile: string;
  readonly modelVersions: readonly string[];
  readonly baseline?: string | null;
};

export const ConsoleBenchmarkComparisonDocument: TypedDocument<
  ConsoleBenchmarkComparisonQuery,
  ConsoleBenchmarkComparisonQueryVariables
> = {
  operationName: 'ConsoleBenchmarkComparison',
  document: `query ConsoleBenchmarkComparison($profile: String!, $modelVersions: [String!]!, $baseline: String) {
  benchmarkComparison(
    profile: $profile
    modelVersions: $modelVersions
    baseline: $baseline
  ) {
    profile
    profileDigest
    baseline
    regressed
    thresholds {
      maxTtftP95Increase
      ttftSlackMs
      maxTokensPerSecondDrop
      maxErrorRateIncrease
      maxPassRateDrop
    }
    entries {
      modelRef
      modelVersionId
      baseline
      passRate
      ttftP50Ms
      ttftP95Ms
      ttftP99Ms
      tokensPerSecond
      errorRate
      sameSuiteAsBaseline
      regressed
      regressions {
        metric
        baseline
        candidate
        reason
      }
      run {
        id
        suite
        finishedAt
        workflowId
        temporalUiUrl
      }
    }
  }
}`,
};

/** From libs/sdk/graphql/console/benchmarks.graphql. */
export type ConsoleBenchmarkRunsQuery = {
  readonly benchmarkRuns: readonly {
    readonly id: string;
    readonly deploymentId: string;
    readonly modelRef: string;
    readonly profile: string;
    readonly sloTtftP95Ms: number | null;
    readonly sloMaxErrorRate: number | null;
    readonly state: string;
    readonly kinds: readonly string[];
    readonly errorCode: string | null;
    readonly error: string | null;
    readonly createdAt: string;
    readonly finishedAt: string | null;
    readonly saturation: {
      readonly replicas: number;
      readonly brokeAtConcurrency: number | null;
      readonly sustainableConcurrency: number | null;
      readonly perReplicaRequestsPerSecond: number | null;
      readonly steps: readonly {
        readonly concurrency: number;
        readonly requests: number;
        readonly errors: number;
        readonly errorRate: number;
        readonly ttftMs: {
          readonly p50: number;
          readonly p95: number;
          readonly p99: number;
        } | null;
        readonly latencyMs: {
          readonly p50: number;
          readonly p95: number;
          readonly p99: number;
        } | null;
        readonly requestsPerSecond: number;
        readonly tokensPerSecond: number;
        readonly queueDepth: {
          readonly max: number;
          readonly mean: number;
        } | null;
        readonly durationMs: number;
        readonly breach: string | null;
      }[];
    } | null;
    readonly longStream: {
      readonly concurrency: number;
      readonly requests: number;
      readonly errors: number;
      readonly errorRate: number;
      readonly ttftMs: {
        readonly p50: number;
        readonly p95: number;
        readonly p99: number;
      } | null;
      readonly latencyMs: {
        readonly p50: number;
        readonly p95: number;
        readonly p99: number;
      } | null;
      readonly requestsPerSecond: number;
      readonly tokensPerSecond: number;
      readonly queueDepth: {
        readonly max: number;
        readonly mean: number;
      } | null;
      readonly durationMs: number;
      readonly interTokenGapMs: {
        readonly p50: number;
        readonly p95: number;
        readonly p99: number;
      } | null;
      readonly completionTokensP50: number | null;
    } | null;
    readonly mixed: {
      readonly short: ConsoleLoadFiguresFragment;
      readonly long: ConsoleLoadFiguresFragment;
    } | null;
    readonly coldStart: {
      readonly repeats: number;
      readonly failures: number;
      readonly deployToFirstTokenMs: {
        readonly p50: number;
        readonly p95: number;
        readonly p99: number;
      } | null;
      readonly deployToReadyMs: {
        readonly p50: number;
        readonly p95: number;
        readonly p99: number;
      } | null;
      readonly samples: readonly {
        readonly deploymentId: string;
        readonly ok: boolean;
        readonly deployToReadyMs: number | null;
        readonly deployToFirstTokenMs: number | null;
        readonly error: string | null;
      }[];
    } | null;
  }[];
};

export type ConsoleBenchmarkRunsQueryVariables = Record<string, never>;

export const ConsoleBenchmarkRunsDocument: TypedDocument<
  ConsoleBenchmarkRunsQuery,
  ConsoleBenchmarkRunsQueryVariables
> = {
  operationName: 'ConsoleBenchmarkRuns',
  document: `query ConsoleBenchmarkRuns {
  benchmarkRuns(limit: 20) {
    id
    deploymentId
    modelRef
    profile
    sloTtftP95Ms
    sloMaxErrorRate
    state
    kinds
    errorCode
    error
    createdAt
    finishedAt
    saturation {
      replicas
      brokeAtConcurrency
      sustainableConcurrency
      perReplicaRequestsPerSecond
      steps {
        concurrency
        requests
        errors
        errorRate
        ttftMs {
          p50
          p95
          p99
        }
        latencyMs {
          p50
          p95
          p99
        }
        requestsPerSecond
        tokensPerSecond
        queueDepth {
          max
          mean
        }
        durationMs
        breach
      }
    }
    longStream {
      concurrency
      requests
      errors
      errorRate
      ttftMs {
        p50
        p95
        p99
      }
      latencyMs {
        p50
        p95
        p99
      }
      requestsPerSecond
      tokensPerSecond
      queueDepth {
        max
        mean
      }
      durationMs
      interTokenGapMs {
        p50
        p95
        p99
      }
      completionTokensP50
    }
    mixed {
      short {
        ...ConsoleLoadFigures
      }
      long {
        ...ConsoleLoadFigures
      }
    }
    coldStart {
      repeats
      failures
      deployToFirstTokenMs {
        p50
        p95
        p99
      }
      deployToReadyMs {
        p50
        p95
        p99
      }
      samples {
        deploymentId
        ok
        deployToReadyMs
        deployToFirstTokenMs
        error
      }
    }
  }
}

fragment ConsoleLoadFigures on LoadFigures {
  concurrency
  requests
  errors
  errorRate
  ttftMs {
    p50
    p95
    p99
  }
  latencyMs {
    p50
    p95
    p99
  }
  requestsPerSecond
  tokensPerSecond
  queueDepth {
    max
    mean
  }
  durationMs
}`,
};

/** From libs/sdk/graphql/console/benchmarks.graphql. */
export type ConsoleStartBenchmarkRunMutation = {
  readonly startBenchmarkRun: {
    readonly runId: string;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
  };
};

export type ConsoleStartBenchmarkRunMutationVariables = {
  readonly input: Schema.StartBenchmarkRunInput;
};

export const ConsoleStartBenchmarkRunDocument: TypedDocument<
  ConsoleStartBenchmarkRunMutation,
  ConsoleStartBenchmarkRunMutationVariables
> = {
  operationName: 'ConsoleStartBenchmarkRun',
  document: `mutation ConsoleStartBenchmarkRun($input: StartBenchmarkRunInput!) {
  startBenchmarkRun(input: $input) {
    runId
    workflowId
    temporalUiUrl
    correlationId
  }
}`,
};

/** From libs/sdk/graphql/console/benchmarks.graphql. */
export type ConsoleCapacityRecommendationsQuery = {
  readonly capacityRecommendations: readonly {
    readonly alias: string;
    readonly deploymentId: string | null;
    readonly benchmarkRunId: string | null;
    readonly targetTtftP95Ms: number | null;
    readonly perReplicaRequestsPerSecond: number | null;
    readonly peakRequestsPerSecond: number | null;
    readonly peakAt: string | null;
    readonly windowHours: number;
    readonly currentReplicas: number;
    readonly replicasNeeded: number | null;
    readonly capacityRequestsPerSecond: number | null;
    readonly headroom: number | null;
    readonly largestNode: string | null;
    readonly capacityAfterNodeLoss: number | null;
    readonly nodeLossMargin: number | null;
    readonly survivesNodeLoss: boolean | null;
    readonly missing: readonly string[];
  }[];
};

export type ConsoleCapacityRecommendationsQueryVariables = Record<string, never>;

export const ConsoleCapacityRecommendationsDocument: TypedDocument<
  ConsoleCapacityRecommendationsQuery,
  ConsoleCapacityRecommendationsQueryVariables
> = {
  operationName: 'ConsoleCapacityRecommendations',
  document: `query ConsoleCapacityRecommendations {
  capacityRecommendations {
    alias
    deploymentId
    benchmarkRunId
    targetTtftP95Ms
    perReplicaRequestsPerSecond
    peakRequestsPerSecond
    peakAt
    windowHours
    currentReplicas
    replicasNeeded
    capacityRequestsPerSecond
    headroom
    largestNode
    capacityAfterNodeLoss
    nodeLossMargin
    survivesNodeLoss
    missing
  }
}`,
};

/** From libs/sdk/graphql/console/deployments.graphql. */
export type ConsoleDeploymentsQuery = {
  readonly deployments: readonly ConsoleDeploymentFragment[];
};

export type ConsoleDeploymentsQueryVariables = Record<string, never>;

export const ConsoleDeploymentsDocument: TypedDocument<
  ConsoleDeploymentsQuery,
  ConsoleDeploymentsQueryVariables
> = {
  operationName: 'ConsoleDeployments',
  document: `query ConsoleDeployments {
  deployments {
    ...ConsoleDeployment
  }
}

fragment ConsoleDeployment on Deployment {
  id
  name
  modelRef
  purpose
  state
  stateReason
  generation
  observedGeneration
  desiredReplicas
  readyReplicas
  createdBy
  createdAt
  updatedAt
  workflowId
  temporalUiUrl
  assignments {
    id
    nodeId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    inFlight
    message
    observedAt
  }
  placement {
    decidedAt
    chosen {
      node
      reason
    }
    rejected {
      node
      reasons
    }
    unplaced
  }
}`,
};

/** From libs/sdk/graphql/console/deployments.graphql. */
export type ConsoleDeploymentQuery = {
  readonly deployment: ConsoleDeploymentFragment | null;
};

export type ConsoleDeploymentQueryVariables = {
  readonly deployment: string;
};

export const ConsoleDeploymentDocument: TypedDocument<
  ConsoleDeploymentQuery,
  ConsoleDeploymentQueryVariables
> = {
  operationName: 'ConsoleDeployment',
  document: `query ConsoleDeployment($deployment: String!) {
  deployment(deployment: $deployment) {
    ...ConsoleDeployment
  }
}

fragment ConsoleDeployment on Deployment {
  id
  name
  modelRef
  purpose
  state
  stateReason
  generation
  observedGeneration
  desiredReplicas
  readyReplicas
  createdBy
  createdAt
  updatedAt
  workflowId
  temporalUiUrl
  assignments {
    id
    nodeId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    inFlight
    message
    observedAt
  }
  placement {
    decidedAt
    chosen {
      node
      reason
    }
    rejected {
      node
      reasons
    }
    unplaced
  }
}`,
};

/** From libs/sdk/graphql/console/deployments.graphql. */
export type ConsoleDeployChoicesQuery = {
  readonly modelVersions: readonly {
    readonly id: string;
    readonly ref: string;
    readonly model: string;
    readonly version: string;
    readonly runtimeKind: string;
    readonly state: string;
    readonly createdAt: Schema.DateTimeString;
  }[];
  readonly nodes: readonly {
    readonly id: string;
    readonly name: string;
    readonly lifecycle: string;
    readonly readiness: string;
    readonly cordoned: boolean;
  }[];
};

export type ConsoleDeployChoicesQueryVariables = Record<string, never>;

export const ConsoleDeployChoicesDocument: TypedDocument<
  ConsoleDeployChoicesQuery,
  ConsoleDeployChoicesQueryVariables
> = {
  operationName: 'ConsoleDeployChoices',
  document: `query ConsoleDeployChoices {
  modelVersions {
    id
    ref
    model
    version
    runtimeKind
    state
    createdAt
  }
  nodes {
    id
    name
    lifecycle
    readiness
    cordoned
  }
}`,
};

/** From libs/sdk/graphql/console/deployments.graphql. */
export type ConsoleCreateDeploymentMutation = {
  readonly createDeployment: {
    readonly deploymentId: string;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly deployment: ConsoleDeploymentFragment | null;
  };
};

export type ConsoleCreateDeploymentMutationVariables = {
  readonly input: Schema.CreateDeploymentInput;
};

export const ConsoleCreateDeploymentDocument: TypedDocument<
  ConsoleCreateDeploymentMutation,
  ConsoleCreateDeploymentMutationVariables
> = {
  operationName: 'ConsoleCreateDeployment',
  document: `mutation ConsoleCreateDeployment($input: CreateDeploymentInput!) {
  createDeployment(input: $input) {
    deploymentId
    workflowId
    temporalUiUrl
    correlationId
    deployment {
      ...ConsoleDeployment
    }
  }
}

fragment ConsoleDeployment on Deployment {
  id
  name
  modelRef
  purpose
  state
  stateReason
  generation
  observedGeneration
  desiredReplicas
  readyReplicas
  createdBy
  createdAt
  updatedAt
  workflowId
  temporalUiUrl
  assignments {
    id
    nodeId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    inFlight
    message
    observedAt
  }
  placement {
    decidedAt
    chosen {
      node
      reason
    }
    rejected {
      node
      reasons
    }
    unplaced
  }
}`,
};

/** From libs/sdk/graphql/console/deployments.graphql. */
export type ConsoleStopDeploymentMutation = {
  readonly stopDeployment: {
    readonly deploymentId: string;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly deployment: ConsoleDeploymentFragment | null;
  };
};

export type ConsoleStopDeploymentMutationVariables = {
  readonly deployment: string;
};

export const ConsoleStopDeploymentDocument: TypedDocument<
  ConsoleStopDeploymentMutation,
  ConsoleStopDeploymentMutationVariables
> = {
  operationName: 'ConsoleStopDeployment',
  document: `mutation ConsoleStopDeployment($deployment: String!) {
  stopDeployment(deployment: $deployment) {
    deploymentId
    workflowId
    temporalUiUrl
    correlationId
    deployment {
      ...ConsoleDeployment
    }
  }
}

fragment ConsoleDeployment on Deployment {
  id
  name
  modelRef
  purpose
  state
  stateReason
  generation
  observedGeneration
  desiredReplicas
  readyReplicas
  createdBy
  createdAt
  updatedAt
  workflowId
  temporalUiUrl
  assignments {
    id
    nodeId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    inFlight
    message
    observedAt
  }
  placement {
    decidedAt
    chosen {
      node
      reason
    }
    rejected {
      node
      reasons
    }
    unplaced
  }
}`,
};

/** From libs/sdk/graphql/console/deployments.graphql. */
export type ConsoleRegisterModelVersionMutation = {
  readonly registerModelVersion: {
    readonly id: string;
    readonly ref: string;
    readonly model: string;
    readonly version: string;
    readonly runtimeKind: string;
    readonly state: string;
    readonly createdAt: Schema.DateTimeString;
  };
};

export type ConsoleRegisterModelVersionMutationVariables = {
  readonly input: Schema.RegisterModelVersionInput;
};

export const ConsoleRegisterModelVersionDocument: TypedDocument<
  ConsoleRegisterModelVersionMutation,
  ConsoleRegisterModelVersionMutationVariables
> = {
  operationName: 'ConsoleRegisterModelVersion',
  document: `mutation ConsoleRegisterModelVersion($input: RegisterModelVersionInput!) {
  registerModelVersion(input: $input) {
    id
    ref
    model
    version
    runtimeKind
    state
    createdAt
  }
}`,
};

/** From libs/sdk/graphql/console/deployments.graphql. */
export type ConsolePlacementPlanQuery = {
  readonly placementPlan: {
    readonly strategy: string;
    readonly replicas: number;
    readonly unplaced: number;
    readonly chosen: readonly {
      readonly node: string;
      readonly reason: string;
    }[];
    readonly rejected: readonly {
      readonly node: string;
      readonly reasons: readonly string[];
    }[];
  };
};

export type ConsolePlacementPlanQueryVariables = {
  readonly input: Schema.PlacementPlanInput;
};

export const ConsolePlacementPlanDocument: TypedDocument<
  ConsolePlacementPlanQuery,
  ConsolePlacementPlanQueryVariables
> = {
  operationName: 'ConsolePlacementPlan',
  document: `query ConsolePlacementPlan($input: PlacementPlanInput!) {
  placementPlan(input: $input) {
    strategy
    replicas
    unplaced
    chosen {
      node
      reason
    }
    rejected {
      node
      reasons
    }
  }
}`,
};

/** From libs/sdk/graphql/console/deployments.graphql. */
export type ConsoleDeploymentRecoveriesQuery = {
  readonly auditEvents: {
    readonly events: readonly {
      readonly seq: number;
      readonly action: string;
      readonly occurredAt: Schema.DateTimeString;
      readonly workflowId: string | null;
      readonly temporalUiUrl: string | null;
      readonly evidenceJson: string;
    }[];
  };
  readonly nodes: readonly {
    readonly id: string;
    readonly name: string;
  }[];
};

export type ConsoleDeploymentRecoveriesQueryVariables = {
  readonly first: number;
};

export const ConsoleDeploymentRecoveriesDocument: TypedDocument<
  ConsoleDeploymentRecoveriesQuery,
  ConsoleDeploymentRecoveriesQueryVariables
> = {
  operationName: 'ConsoleDeploymentRecoveries',
  document: `query ConsoleDeploymentRecoveries($first: Int!) {
  auditEvents(filter: {action: "node.recovery.*"}, first: $first) {
    events {
      seq
      action
      occurredAt
      workflowId
      temporalUiUrl
      evidenceJson
    }
  }
  nodes {
    id
    name
  }
}`,
};

/** From libs/sdk/graphql/console/fleet-health.graphql. */
export type ConsoleHealingPlanQuery = {
  readonly healingPlan: ConsoleHealingPlanFragment;
};

export type ConsoleHealingPlanQueryVariables = Record<string, never>;

export const ConsoleHealingPlanDocument: TypedDocument<
  ConsoleHealingPlanQuery,
  ConsoleHealingPlanQueryVariables
> = {
  operationName: 'ConsoleHealingPlan',
  document: `query ConsoleHealingPlan {
  healingPlan {
    ...ConsoleHealingPlan
  }
}

fragment ConsoleHealingPlan on HealingPlanView {
  dryRun
  actions {
    rule
    kind
    target
    nodeId
    deploymentId
    reason
    outcome
    receiptHash
  }
  skipped {
    rule
    target
    reason
  }
}`,
};

/** From libs/sdk/graphql/console/fleet-health.graphql. */
export type ConsoleHealMutation = {
  readonly heal: {
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly plan: ConsoleHealingPlanFragment;
  };
};

export type ConsoleHealMutationVariables = {
  readonly input: Schema.HealInput;
};

export const ConsoleHealDocument: TypedDocument<ConsoleHealMutation, ConsoleHealMutationVariables> = {
  operationName: 'ConsoleHeal',
  document: `mutation ConsoleHeal($input: HealInput!) {
  heal(input: $input) {
    workflowId
    temporalUiUrl
    plan {
      ...ConsoleHealingPlan
    }
  }
}

fragment ConsoleHealingPlan on HealingPlanView {
  dryRun
  actions {
    rule
    kind
    target
    nodeId
    deploymentId
    reason
    outcome
    receiptHash
  }
  skipped {
    rule
    target
    reason
  }
}`,
};

/** From libs/sdk/graphql/console/fleet-health.graphql. */
export type ConsoleReconcileMutation = {
  readonly reconcileFleet: ConsoleReconcileRunFragment;
};

export type ConsoleReconcileMutationVariables = {
  readonly input: Schema.ReconcileInput;
};

export const ConsoleReconcileDocument: TypedDocument<
  ConsoleReconcileMutation,
  ConsoleReconcileMutationVariables
> = {
  operationName: 'ConsoleReconcile',
  document: `mutation ConsoleReconcile($input: ReconcileInput!) {
  reconcileFleet(input: $input) {
    ...ConsoleReconcileRun
  }
}

fragment ConsoleReconcileRun on ReconcileRun {
  dryRun
  inSync
  workflowId
  temporalUiUrl
  receiptHash
  drift {
    kind
    target
    deploymentId
    nodeId
    desired
    observed
    note
    repair
  }
  repairs {
    kind
    target
    deploymentId
    reason
    outcome
  }
}`,
};

/** From libs/sdk/graphql/console/live-events.graphql. */
export type ConsoleFleetEventsSubscription = {
  readonly fleetEvents: {
    readonly kind: string;
    readonly seq: number | null;
    readonly action: string | null;
    readonly actor: string | null;
    readonly decision: string | null;
    readonly correlationId: string | null;
    readonly workflowId: string | null;
    readonly subject: string | null;
    readonly nodeId: string | null;
    readonly occurredAt: string;
    readonly dropped: number;
  };
};

export type ConsoleFleetEventsSubscriptionVariables = {
  readonly kinds?: readonly string[] | null;
};

export const ConsoleFleetEventsDocument: TypedDocument<
  ConsoleFleetEventsSubscription,
  ConsoleFleetEventsSubscriptionVariables
> = {
  operationName: 'ConsoleFleetEvents',
  document: `subscription ConsoleFleetEvents($kinds: [String!]) {
  fleetEvents(kinds: $kinds) {
    kind
    seq
    action
    actor
    decision
    correlationId
    workflowId
    subject
    nodeId
    occurredAt
    dropped
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleModelsQuery = {
  readonly models: readonly {
    readonly id: string;
    readonly name: string;
    readonly displayName: string;
    readonly description: string | null;
    readonly createdAt: Schema.DateTimeString;
    readonly versions: readonly {
      readonly id: string;
      readonly ref: string;
      readonly model: string;
      readonly version: string;
      readonly runtimeKind: string;
      readonly state: string;
      readonly stateReason: string | null;
      readonly createdAt: Schema.DateTimeString;
      readonly license: {
        readonly name: string;
        readonly approvalState: string;
      };
      readonly evaluation: {
        readonly passed: boolean;
        readonly suite: string;
      } | null;
    }[];
  }[];
};

export type ConsoleModelsQueryVariables = Record<string, never>;

export const ConsoleModelsDocument: TypedDocument<ConsoleModelsQuery, ConsoleModelsQueryVariables> = {
  operationName: 'ConsoleModels',
  document: `query ConsoleModels {
  models {
    id
    name
    displayName
    description
    createdAt
    versions {
      id
      ref
      model
      version
      runtimeKind
      state
      stateReason
      createdAt
      license {
        name
        approvalState
      }
      evaluation {
        passed
        suite
      }
    }
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleModelVersionQuery = {
  readonly modelVersion: ConsoleModelVersionFragment | null;
  readonly evaluationRuns: readonly ConsoleEvaluationRunFragment[];
  readonly aliases: readonly {
    readonly id: string;
    readonly name: string;
    readonly currentRevision: number;
    readonly canaryWeight: number;
    readonly current: {
      readonly revision: number;
      readonly modelRef: string;
    } | null;
    readonly activeRollout: {
      readonly id: string;
      readonly modelRef: string;
      readonly state: string;
    } | null;
  }[];
};

export type ConsoleModelVersionQueryVariables = {
  readonly ref: string;
  readonly limit?: number | null;
};

export const ConsoleModelVersionDocument: TypedDocument<
  ConsoleModelVersionQuery,
  ConsoleModelVersionQueryVariables
> = {
  operationName: 'ConsoleModelVersion',
  document: `query ConsoleModelVersion($ref: String!, $limit: Int) {
  modelVersion(ref: $ref) {
    ...ConsoleModelVersion
  }
  evaluationRuns(modelVersion: $ref, limit: $limit) {
    ...ConsoleEvaluationRun
  }
  aliases {
    id
    name
    currentRevision
    canaryWeight
    current {
      revision
      modelRef
    }
    activeRollout {
      id
      modelRef
      state
    }
  }
}

fragment ConsoleModelVersion on ModelVersion {
  id
  ref
  model
  version
  runtimeKind
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
    scores {
      name
      value
    }
  }
  license {
    id
    name
    kind
    spdxId
    customName
    termsUri
    commercialUse
    allowedDataClasses
    approvalState
    decidedBy
    decidedAt
    note
  }
  runtime {
    id
    name
    version
    kind
    allowed
    supportedHardware {
      architectures
      memoryModels
      minComputeCapability
      maxComputeCapability
      minCudaVersion
      gpusPerReplica
      minMemoryBytesPerReplica
    }
  }
}

fragment ConsoleEvaluationRun on EvaluationRun {
  id
  modelRef
  deploymentId
  suite
  profile
  state
  passed
  reasons
  errorCode
  workflowId
  temporalUiUrl
  createdBy
  createdAt
  finishedAt
  scores {
    passRate
    passedCases
    totalCases
    passThreshold
  }
  metrics {
    requests
    errorRate
    tokensPerSecond
    ttftMs {
      p50
      p95
      p99
    }
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleEvaluationRunQuery = {
  readonly evaluationRun: ConsoleEvaluationRunFragment | null;
};

export type ConsoleEvaluationRunQueryVariables = {
  readonly id: string;
};

export const ConsoleEvaluationRunDocument: TypedDocument<
  ConsoleEvaluationRunQuery,
  ConsoleEvaluationRunQueryVariables
> = {
  operationName: 'ConsoleEvaluationRun',
  document: `query ConsoleEvaluationRun($id: ID!) {
  evaluationRun(id: $id) {
    ...ConsoleEvaluationRun
  }
}

fragment ConsoleEvaluationRun on EvaluationRun {
  id
  modelRef
  deploymentId
  suite
  profile
  state
  passed
  reasons
  errorCode
  workflowId
  temporalUiUrl
  createdBy
  createdAt
  finishedAt
  scores {
    passRate
    passedCases
    totalCases
    passThreshold
  }
  metrics {
    requests
    errorRate
    tokensPerSecond
    ttftMs {
      p50
      p95
      p99
    }
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleEvaluationChoicesQuery = {
  readonly deployments: readonly {
    readonly id: string;
    readonly name: string;
    readonly modelRef: string;
    readonly state: string;
    readonly readyReplicas: number;
    readonly desiredReplicas: number;
  }[];
  readonly evaluationSuites: readonly {
    readonly id: string;
    readonly name: string;
    readonly caseCount: number;
    readonly passThreshold: number;
  }[];
  readonly benchmarkProfiles: readonly {
    readonly id: string;
    readonly name: string;
    readonly concurrency: number;
    readonly durationSeconds: number | null;
    readonly requestCount: number | null;
  }[];
};

export type ConsoleEvaluationChoicesQueryVariables = Record<string, never>;

export const ConsoleEvaluationChoicesDocument: TypedDocument<
  ConsoleEvaluationChoicesQuery,
  ConsoleEvaluationChoicesQueryVariables
> = {
  operationName: 'ConsoleEvaluationChoices',
  document: `query ConsoleEvaluationChoices {
  deployments {
    id
    name
    modelRef
    state
    readyReplicas
    desiredReplicas
  }
  evaluationSuites {
    id
    name
    caseCount
    passThreshold
  }
  benchmarkProfiles {
    id
    name
    concurrency
    durationSeconds
    requestCount
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleVersionChoicesQuery = {
  readonly models: readonly {
    readonly id: string;
    readonly name: string;
  }[];
  readonly licenses: readonly {
    readonly id: string;
    readonly name: string;
    readonly approvalState: string;
    readonly allowedDataClasses: readonly string[];
  }[];
  readonly runtimes: readonly {
    readonly id: string;
    readonly name: string;
    readonly version: string;
    readonly kind: string;
    readonly allowed: boolean;
  }[];
};

export type ConsoleVersionChoicesQueryVariables = Record<string, never>;

export const ConsoleVersionChoicesDocument: TypedDocument<
  ConsoleVersionChoicesQuery,
  ConsoleVersionChoicesQueryVariables
> = {
  operationName: 'ConsoleVersionChoices',
  document: `query ConsoleVersionChoices {
  models {
    id
    name
  }
  licenses {
    id
    name
    approvalState
    allowedDataClasses
  }
  runtimes {
    id
    name
    version
    kind
    allowed
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleStartEvaluationMutation = {
  readonly startEvaluation: {
    readonly runId: string;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly run: ConsoleEvaluationRunFragment | null;
  };
};

export type ConsoleStartEvaluationMutationVariables = {
  readonly input: Schema.StartEvaluationInput;
};

export const ConsoleStartEvaluationDocument: TypedDocument<
  ConsoleStartEvaluationMutation,
  ConsoleStartEvaluationMutationVariables
> = {
  operationName: 'ConsoleStartEvaluation',
  document: `mutation ConsoleStartEvaluation($input: StartEvaluationInput!) {
  startEvaluation(input: $input) {
    runId
    workflowId
    temporalUiUrl
    correlationId
    run {
      ...ConsoleEvaluationRun
    }
  }
}

fragment ConsoleEvaluationRun on EvaluationRun {
  id
  modelRef
  deploymentId
  suite
  profile
  state
  passed
  reasons
  errorCode
  workflowId
  temporalUiUrl
  createdBy
  createdAt
  finishedAt
  scores {
    passRate
    passedCases
    totalCases
    passThreshold
  }
  metrics {
    requests
    errorRate
    tokensPerSecond
    ttftMs {
      p50
      p95
      p99
    }
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleCreateModelMutation = {
  readonly createModel: {
    readonly id: string;
    readonly name: string;
  };
};

export type ConsoleCreateModelMutationVariables = {
  readonly input: Schema.CreateModelInput;
};

export const ConsoleCreateModelDocument: TypedDocument<
  ConsoleCreateModelMutation,
  ConsoleCreateModelMutationVariables
> = {
  operationName: 'ConsoleCreateModel',
  document: `mutation ConsoleCreateModel($input: CreateModelInput!) {
  createModel(input: $input) {
    id
    name
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleCreateModelVersionMutation = {
  readonly createModelVersion: ConsoleModelVersionFragment;
};

export type ConsoleCreateModelVersionMutationVariables = {
  readonly input: Schema.CreateModelVersionInput;
};

export const ConsoleCreateModelVersionDocument: TypedDocument<
  ConsoleCreateModelVersionMutation,
  ConsoleCreateModelVersionMutationVariables
> = {
  operationName: 'ConsoleCreateModelVersion',
  document: `mutation ConsoleCreateModelVersion($input: CreateModelVersionInput!) {
  createModelVersion(input: $input) {
    ...ConsoleModelVersion
  }
}

fragment ConsoleModelVersion on ModelVersion {
  id
  ref
  model
  version
  runtimeKind
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
    scores {
      name
      value
    }
  }
  license {
    id
    name
    kind
    spdxId
    customName
    termsUri
    commercialUse
    allowedDataClasses
    approvalState
    decidedBy
    decidedAt
    note
  }
  runtime {
    id
    name
    version
    kind
    allowed
    supportedHardware {
      architectures
      memoryModels
      minComputeCapability
      maxComputeCapability
      minCudaVersion
      gpusPerReplica
      minMemoryBytesPerReplica
    }
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleVerifyModelVersionMutation = {
  readonly verifyModelVersion: ConsoleModelVersionFragment;
};

export type ConsoleVerifyModelVersionMutationVariables = {
  readonly ref: string;
};

export const ConsoleVerifyModelVersionDocument: TypedDocument<
  ConsoleVerifyModelVersionMutation,
  ConsoleVerifyModelVersionMutationVariables
> = {
  operationName: 'ConsoleVerifyModelVersion',
  document: `mutation ConsoleVerifyModelVersion($ref: String!) {
  verifyModelVersion(ref: $ref) {
    ...ConsoleModelVersion
  }
}

fragment ConsoleModelVersion on ModelVersion {
  id
  ref
  model
  version
  runtimeKind
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
    scores {
      name
      value
    }
  }
  license {
    id
    name
    kind
    spdxId
    customName
    termsUri
    commercialUse
    allowedDataClasses
    approvalState
    decidedBy
    decidedAt
    note
  }
  runtime {
    id
    name
    version
    kind
    allowed
    supportedHardware {
      architectures
      memoryModels
      minComputeCapability
      maxComputeCapability
      minCudaVersion
      gpusPerReplica
      minMemoryBytesPerReplica
    }
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleApproveModelVersionMutation = {
  readonly approveModelVersion: ConsoleModelVersionFragment;
};

export type ConsoleApproveModelVersionMutationVariables = {
  readonly ref: string;
  readonly note?: string | null;
};

export const ConsoleApproveModelVersionDocument: TypedDocument<
  ConsoleApproveModelVersionMutation,
  ConsoleApproveModelVersionMutationVariables
> = {
  operationName: 'ConsoleApproveModelVersion',
  document: `mutation ConsoleApproveModelVersion($ref: String!, $note: String) {
  approveModelVersion(ref: $ref, note: $note) {
    ...ConsoleModelVersion
  }
}

fragment ConsoleModelVersion on ModelVersion {
  id
  ref
  model
  version
  runtimeKind
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
    scores {
      name
      value
    }
  }
  license {
    id
    name
    kind
    spdxId
    customName
    termsUri
    commercialUse
    allowedDataClasses
    approvalState
    decidedBy
    decidedAt
    note
  }
  runtime {
    id
    name
    version
    kind
    allowed
    supportedHardware {
      architectures
      memoryModels
      minComputeCapability
      maxComputeCapability
      minCudaVersion
      gpusPerReplica
      minMemoryBytesPerReplica
    }
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleDeprecateModelVersionMutation = {
  readonly deprecateModelVersion: ConsoleModelVersionFragment;
};

export type ConsoleDeprecateModelVersionMutationVariables = {
  readonly ref: string;
  readonly reason: string;
};

export const ConsoleDeprecateModelVersionDocument: TypedDocument<
  ConsoleDeprecateModelVersionMutation,
  ConsoleDeprecateModelVersionMutationVariables
> = {
  operationName: 'ConsoleDeprecateModelVersion',
  document: `mutation ConsoleDeprecateModelVersion($ref: String!, $reason: String!) {
  deprecateModelVersion(ref: $ref, reason: $reason) {
    ...ConsoleModelVersion
  }
}

fragment ConsoleModelVersion on ModelVersion {
  id
  ref
  model
  version
  runtimeKind
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
    scores {
      name
      value
    }
  }
  license {
    id
    name
    kind
    spdxId
    customName
    termsUri
    commercialUse
    allowedDataClasses
    approvalState
    decidedBy
    decidedAt
    note
  }
  runtime {
    id
    name
    version
    kind
    allowed
    supportedHardware {
      architectures
      memoryModels
      minComputeCapability
      maxComputeCapability
      minCudaVersion
      gpusPerReplica
      minMemoryBytesPerReplica
    }
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleReinstateModelVersionMutation = {
  readonly reinstateModelVersion: ConsoleModelVersionFragment;
};

export type ConsoleReinstateModelVersionMutationVariables = {
  readonly ref: string;
  readonly note?: string | null;
};

export const ConsoleReinstateModelVersionDocument: TypedDocument<
  ConsoleReinstateModelVersionMutation,
  ConsoleReinstateModelVersionMutationVariables
> = {
  operationName: 'ConsoleReinstateModelVersion',
  document: `mutation ConsoleReinstateModelVersion($ref: String!, $note: String) {
  reinstateModelVersion(ref: $ref, note: $note) {
    ...ConsoleModelVersion
  }
}

fragment ConsoleModelVersion on ModelVersion {
  id
  ref
  model
  version
  runtimeKind
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
    scores {
      name
      value
    }
  }
  license {
    id
    name
    kind
    spdxId
    customName
    termsUri
    commercialUse
    allowedDataClasses
    approvalState
    decidedBy
    decidedAt
    note
  }
  runtime {
    id
    name
    version
    kind
    allowed
    supportedHardware {
      architectures
      memoryModels
      minComputeCapability
      maxComputeCapability
      minCudaVersion
      gpusPerReplica
      minMemoryBytesPerReplica
    }
  }
}`,
};

/** From libs/sdk/graphql/console/models.graphql. */
export type ConsoleRetireModelVersionMutation = {
  readonly retireModelVersion: ConsoleModelVersionFragment;
};

export type ConsoleRetireModelVersionMutationVariables = {
  readonly ref: string;
  readonly reason: string;
  readonly withdraw?: boolean | null;
};

export const ConsoleRetireModelVersionDocument: TypedDocument<
  ConsoleRetireModelVersionMutation,
  ConsoleRetireModelVersionMutationVariables
> = {
  operationName: 'ConsoleRetireModelVersion',
  document: `mutation ConsoleRetireModelVersion($ref: String!, $reason: String!, $withdraw: Boolean) {
  retireModelVersion(ref: $ref, reason: $reason, withdraw: $withdraw) {
    ...ConsoleModelVersion
  }
}

fragment ConsoleModelVersion on ModelVersion {
  id
  ref
  model
  version
  runtimeKind
  state
  stateReason
  allowedEvents
  contextLength
  parameterCount
  createdBy
  createdAt
  updatedAt
  artifact {
    uri
    digest
    sizeBytes
    format
    provenance {
      source
      uploader
      uploadedAt
      signature {
        algorithm
        keyId
      }
    }
  }
  requirements {
    architectures
    memoryModels
    minComputeCapability
    maxComputeCapability
    minCudaVersion
    gpusPerReplica
    minMemoryBytesPerReplica
  }
  verification {
    ok
    digest
    sizeBytes
    store
    verifiedAt
    code
    message
  }
  evaluation {
    runId
    suite
    passed
    evaluatedAt
    scores {
      name
      value
    }
  }
  license {
    id
    name
    kind
    spdxId
    customName
    termsUri
    commercialUse
    allowedDataClasses
    approvalState
    decidedBy
    decidedAt
    note
  }
  runtime {
    id
    name
    version
    kind
    allowed
    supportedHardware {
      architectures
      memoryModels
      minComputeCapability
      maxComputeCapability
      minCudaVersion
      gpusPerReplica
      minMemoryBytesPerReplica
    }
  }
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleFleetNodesQuery = {
  readonly nodes: readonly ConsoleFleetNodeFragment[];
};

export type ConsoleFleetNodesQueryVariables = Record<string, never>;

export const ConsoleFleetNodesDocument: TypedDocument<
  ConsoleFleetNodesQuery,
  ConsoleFleetNodesQueryVariables
> = {
  operationName: 'ConsoleFleetNodes',
  document: `query ConsoleFleetNodes {
  nodes {
    ...ConsoleFleetNode
  }
}

fragment ConsoleFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  cordoned
  actions {
    action
    allowed
    reason
  }
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  address
  sshPort
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  heartbeatAgeSeconds
  architecture
  cpuCores
  systemMemoryBytes
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  gpuTelemetry {
    uuid
    index
    sampledAt
    utilizationPercent
    memoryUsedBytes
    memoryTotalBytes
    memorySource
    temperatureCelsius
    powerWatts
    powerLimitWatts
    throttleReasons
    eccUncorrectedErrors
    lastXid
    lastError
    lost
    processMemoryBytes
    processCount
  }
  assignments {
    id
    deploymentId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    endpointPort
    inFlight
    message
    observedAt
  }
  enrollWorkflowId
  temporalUiUrl
  enrolledAt
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleFleetNodeQuery = {
  readonly node: ConsoleFleetNodeFragment | null;
};

export type ConsoleFleetNodeQueryVariables = {
  readonly node: string;
};

export const ConsoleFleetNodeDocument: TypedDocument<ConsoleFleetNodeQuery, ConsoleFleetNodeQueryVariables> =
  {
    operationName: 'ConsoleFleetNode',
    document: `query ConsoleFleetNode($node: String!) {
  node(node: $node) {
    ...ConsoleFleetNode
  }
}

fragment ConsoleFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  cordoned
  actions {
    action
    allowed
    reason
  }
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  address
  sshPort
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  heartbeatAgeSeconds
  architecture
  cpuCores
  systemMemoryBytes
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  gpuTelemetry {
    uuid
    index
    sampledAt
    utilizationPercent
    memoryUsedBytes
    memoryTotalBytes
    memorySource
    temperatureCelsius
    powerWatts
    powerLimitWatts
    throttleReasons
    eccUncorrectedErrors
    lastXid
    lastError
    lost
    processMemoryBytes
    processCount
  }
  assignments {
    id
    deploymentId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    endpointPort
    inFlight
    message
    observedAt
  }
  enrollWorkflowId
  temporalUiUrl
  enrolledAt
  updatedAt
}`,
  };

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleNodeGpuSeriesQuery = {
  readonly node: {
    readonly id: string;
    readonly gpuSeries: readonly {
      readonly uuid: string;
      readonly index: number | null;
      readonly points: readonly {
        readonly at: Schema.DateTimeString;
        readonly utilizationPercent: number | null;
        readonly memoryUsedBytes: number | null;
        readonly memoryTotalBytes: number | null;
        readonly temperatureCelsius: number | null;
        readonly powerWatts: number | null;
      }[];
    }[];
  } | null;
};

export type ConsoleNodeGpuSeriesQueryVariables = {
  readonly node: string;
  readonly minutes?: number | null;
};

export const ConsoleNodeGpuSeriesDocument: TypedDocument<
  ConsoleNodeGpuSeriesQuery,
  ConsoleNodeGpuSeriesQueryVariables
> = {
  operationName: 'ConsoleNodeGpuSeries',
  document: `query ConsoleNodeGpuSeries($node: String!, $minutes: Int) {
  node(node: $node) {
    id
    gpuSeries(minutes: $minutes) {
      uuid
      index
      points {
        at
        utilizationPercent
        memoryUsedBytes
        memoryTotalBytes
        temperatureCelsius
        powerWatts
      }
    }
  }
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleCreateBootstrapTokenMutation = {
  readonly createBootstrapToken: {
    readonly token: string;
    readonly bootstrapToken: {
      readonly id: string;
      readonly prefix: string;
      readonly nodeName: string | null;
      readonly labels: readonly {
        readonly key: string;
        readonly value: string;
      }[];
      readonly autoApprove: boolean;
      readonly createdAt: Schema.DateTimeString;
      readonly createdBy: string;
      readonly expiresAt: Schema.DateTimeString;
      readonly usedAt: Schema.DateTimeString | null;
      readonly usedByNodeId: string | null;
      readonly revokedAt: Schema.DateTimeString | null;
    };
    readonly controllerUrl: string;
    readonly controllerKeyFingerprint: string;
    readonly agentInvocation: string;
  };
};

export type ConsoleCreateBootstrapTokenMutationVariables = {
  readonly input: Schema.CreateBootstrapTokenInput;
};

export const ConsoleCreateBootstrapTokenDocument: TypedDocument<
  ConsoleCreateBootstrapTokenMutation,
  ConsoleCreateBootstrapTokenMutationVariables
> = {
  operationName: 'ConsoleCreateBootstrapToken',
  document: `mutation ConsoleCreateBootstrapToken($input: CreateBootstrapTokenInput!) {
  createBootstrapToken(input: $input) {
    token
    bootstrapToken {
      id
      prefix
      nodeName
      labels {
        key
        value
      }
      autoApprove
      createdAt
      createdBy
      expiresAt
      usedAt
      usedByNodeId
      revokedAt
    }
    controllerUrl
    controllerKeyFingerprint
    agentInvocation
  }
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleApproveNodeMutation = {
  readonly approveNode: {
    readonly node: ConsoleFleetNodeFragment;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly receiptHash: string | null;
  };
};

export type ConsoleApproveNodeMutationVariables = {
  readonly node: string;
};

export const ConsoleApproveNodeDocument: TypedDocument<
  ConsoleApproveNodeMutation,
  ConsoleApproveNodeMutationVariables
> = {
  operationName: 'ConsoleApproveNode',
  document: `mutation ConsoleApproveNode($node: String!) {
  approveNode(node: $node) {
    node {
      ...ConsoleFleetNode
    }
    workflowId
    temporalUiUrl
    correlationId
    receiptHash
  }
}

fragment ConsoleFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  cordoned
  actions {
    action
    allowed
    reason
  }
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  address
  sshPort
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  heartbeatAgeSeconds
  architecture
  cpuCores
  systemMemoryBytes
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  gpuTelemetry {
    uuid
    index
    sampledAt
    utilizationPercent
    memoryUsedBytes
    memoryTotalBytes
    memorySource
    temperatureCelsius
    powerWatts
    powerLimitWatts
    throttleReasons
    eccUncorrectedErrors
    lastXid
    lastError
    lost
    processMemoryBytes
    processCount
  }
  assignments {
    id
    deploymentId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    endpointPort
    inFlight
    message
    observedAt
  }
  enrollWorkflowId
  temporalUiUrl
  enrolledAt
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleCordonNodeMutation = {
  readonly cordonNode: ConsoleFleetNodeFragment;
};

export type ConsoleCordonNodeMutationVariables = {
  readonly node: string;
};

export const ConsoleCordonNodeDocument: TypedDocument<
  ConsoleCordonNodeMutation,
  ConsoleCordonNodeMutationVariables
> = {
  operationName: 'ConsoleCordonNode',
  document: `mutation ConsoleCordonNode($node: String!) {
  cordonNode(node: $node) {
    ...ConsoleFleetNode
  }
}

fragment ConsoleFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  cordoned
  actions {
    action
    allowed
    reason
  }
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  address
  sshPort
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  heartbeatAgeSeconds
  architecture
  cpuCores
  systemMemoryBytes
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  gpuTelemetry {
    uuid
    index
    sampledAt
    utilizationPercent
    memoryUsedBytes
    memoryTotalBytes
    memorySource
    temperatureCelsius
    powerWatts
    powerLimitWatts
    throttleReasons
    eccUncorrectedErrors
    lastXid
    lastError
    lost
    processMemoryBytes
    processCount
  }
  assignments {
    id
    deploymentId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    endpointPort
    inFlight
    message
    observedAt
  }
  enrollWorkflowId
  temporalUiUrl
  enrolledAt
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleUncordonNodeMutation = {
  readonly uncordonNode: ConsoleFleetNodeFragment;
};

export type ConsoleUncordonNodeMutationVariables = {
  readonly node: string;
};

export const ConsoleUncordonNodeDocument: TypedDocument<
  ConsoleUncordonNodeMutation,
  ConsoleUncordonNodeMutationVariables
> = {
  operationName: 'ConsoleUncordonNode',
  document: `mutation ConsoleUncordonNode($node: String!) {
  uncordonNode(node: $node) {
    ...ConsoleFleetNode
  }
}

fragment ConsoleFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  cordoned
  actions {
    action
    allowed
    reason
  }
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  address
  sshPort
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  heartbeatAgeSeconds
  architecture
  cpuCores
  systemMemoryBytes
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  gpuTelemetry {
    uuid
    index
    sampledAt
    utilizationPercent
    memoryUsedBytes
    memoryTotalBytes
    memorySource
    temperatureCelsius
    powerWatts
    powerLimitWatts
    throttleReasons
    eccUncorrectedErrors
    lastXid
    lastError
    lost
    processMemoryBytes
    processCount
  }
  assignments {
    id
    deploymentId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    endpointPort
    inFlight
    message
    observedAt
  }
  enrollWorkflowId
  temporalUiUrl
  enrolledAt
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleDrainNodeMutation = {
  readonly drainNode: {
    readonly node: ConsoleFleetNodeFragment;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly replicasAtStart: number;
    readonly inFlightAtStart: number;
    readonly inFlightAtTimeout: number;
    readonly receiptHash: string;
  };
};

export type ConsoleDrainNodeMutationVariables = {
  readonly node: string;
  readonly idempotencyKey?: string | null;
  readonly force?: boolean | null;
  readonly reason?: string | null;
};

export const ConsoleDrainNodeDocument: TypedDocument<
  ConsoleDrainNodeMutation,
  ConsoleDrainNodeMutationVariables
> = {
  operationName: 'ConsoleDrainNode',
  document: `mutation ConsoleDrainNode($node: String!, $idempotencyKey: String, $force: Boolean = false, $reason: String) {
  drainNode(
    node: $node
    idempotencyKey: $idempotencyKey
    force: $force
    reason: $reason
  ) {
    node {
      ...ConsoleFleetNode
    }
    workflowId
    temporalUiUrl
    correlationId
    replicasAtStart
    inFlightAtStart
    inFlightAtTimeout
    receiptHash
  }
}

fragment ConsoleFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  cordoned
  actions {
    action
    allowed
    reason
  }
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  address
  sshPort
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  heartbeatAgeSeconds
  architecture
  cpuCores
  systemMemoryBytes
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  gpuTelemetry {
    uuid
    index
    sampledAt
    utilizationPercent
    memoryUsedBytes
    memoryTotalBytes
    memorySource
    temperatureCelsius
    powerWatts
    powerLimitWatts
    throttleReasons
    eccUncorrectedErrors
    lastXid
    lastError
    lost
    processMemoryBytes
    processCount
  }
  assignments {
    id
    deploymentId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    endpointPort
    inFlight
    message
    observedAt
  }
  enrollWorkflowId
  temporalUiUrl
  enrolledAt
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleRotateNodeCredentialMutation = {
  readonly rotateNodeCredential: {
    readonly node: ConsoleFleetNodeFragment;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly receiptHash: string | null;
  };
};

export type ConsoleRotateNodeCredentialMutationVariables = {
  readonly node: string;
  readonly idempotencyKey?: string | null;
};

export const ConsoleRotateNodeCredentialDocument: TypedDocument<
  ConsoleRotateNodeCredentialMutation,
  ConsoleRotateNodeCredentialMutationVariables
> = {
  operationName: 'ConsoleRotateNodeCredential',
  document: `mutation ConsoleRotateNodeCredential($node: String!, $idempotencyKey: String) {
  rotateNodeCredential(node: $node, idempotencyKey: $idempotencyKey) {
    node {
      ...ConsoleFleetNode
    }
    workflowId
    temporalUiUrl
    correlationId
    receiptHash
  }
}

fragment ConsoleFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  cordoned
  actions {
    action
    allowed
    reason
  }
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  address
  sshPort
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  heartbeatAgeSeconds
  architecture
  cpuCores
  systemMemoryBytes
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  gpuTelemetry {
    uuid
    index
    sampledAt
    utilizationPercent
    memoryUsedBytes
    memoryTotalBytes
    memorySource
    temperatureCelsius
    powerWatts
    powerLimitWatts
    throttleReasons
    eccUncorrectedErrors
    lastXid
    lastError
    lost
    processMemoryBytes
    processCount
  }
  assignments {
    id
    deploymentId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    endpointPort
    inFlight
    message
    observedAt
  }
  enrollWorkflowId
  temporalUiUrl
  enrolledAt
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleSetNodeLabelsMutation = {
  readonly setNodeLabels: ConsoleFleetNodeFragment;
};

export type ConsoleSetNodeLabelsMutationVariables = {
  readonly node: string;
  readonly labels: readonly Schema.LabelInput[];
};

export const ConsoleSetNodeLabelsDocument: TypedDocument<
  ConsoleSetNodeLabelsMutation,
  ConsoleSetNodeLabelsMutationVariables
> = {
  operationName: 'ConsoleSetNodeLabels',
  document: `mutation ConsoleSetNodeLabels($node: String!, $labels: [LabelInput!]!) {
  setNodeLabels(node: $node, labels: $labels) {
    ...ConsoleFleetNode
  }
}

fragment ConsoleFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  cordoned
  actions {
    action
    allowed
    reason
  }
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  address
  sshPort
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  heartbeatAgeSeconds
  architecture
  cpuCores
  systemMemoryBytes
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  gpuTelemetry {
    uuid
    index
    sampledAt
    utilizationPercent
    memoryUsedBytes
    memoryTotalBytes
    memorySource
    temperatureCelsius
    powerWatts
    powerLimitWatts
    throttleReasons
    eccUncorrectedErrors
    lastXid
    lastError
    lost
    processMemoryBytes
    processCount
  }
  assignments {
    id
    deploymentId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    endpointPort
    inFlight
    message
    observedAt
  }
  enrollWorkflowId
  temporalUiUrl
  enrolledAt
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleSetNodeTaintsMutation = {
  readonly setNodeTaints: ConsoleFleetNodeFragment;
};

export type ConsoleSetNodeTaintsMutationVariables = {
  readonly node: string;
  readonly taints: readonly Schema.TaintInput[];
};

export const ConsoleSetNodeTaintsDocument: TypedDocument<
  ConsoleSetNodeTaintsMutation,
  ConsoleSetNodeTaintsMutationVariables
> = {
  operationName: 'ConsoleSetNodeTaints',
  document: `mutation ConsoleSetNodeTaints($node: String!, $taints: [TaintInput!]!) {
  setNodeTaints(node: $node, taints: $taints) {
    ...ConsoleFleetNode
  }
}

fragment ConsoleFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  cordoned
  actions {
    action
    allowed
    reason
  }
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  address
  sshPort
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  heartbeatAgeSeconds
  architecture
  cpuCores
  systemMemoryBytes
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  gpuTelemetry {
    uuid
    index
    sampledAt
    utilizationPercent
    memoryUsedBytes
    memoryTotalBytes
    memorySource
    temperatureCelsius
    powerWatts
    powerLimitWatts
    throttleReasons
    eccUncorrectedErrors
    lastXid
    lastError
    lost
    processMemoryBytes
    processCount
  }
  assignments {
    id
    deploymentId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    endpointPort
    inFlight
    message
    observedAt
  }
  enrollWorkflowId
  temporalUiUrl
  enrolledAt
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleRejectNodeMutation = {
  readonly rejectNode: {
    readonly node: ConsoleFleetNodeFragment;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly receiptHash: string | null;
  };
};

export type ConsoleRejectNodeMutationVariables = {
  readonly node: string;
  readonly reason: string;
  readonly idempotencyKey?: string | null;
};

export const ConsoleRejectNodeDocument: TypedDocument<
  ConsoleRejectNodeMutation,
  ConsoleRejectNodeMutationVariables
> = {
  operationName: 'ConsoleRejectNode',
  document: `mutation ConsoleRejectNode($node: String!, $reason: String!, $idempotencyKey: String) {
  rejectNode(node: $node, reason: $reason, idempotencyKey: $idempotencyKey) {
    node {
      ...ConsoleFleetNode
    }
    workflowId
    temporalUiUrl
    correlationId
    receiptHash
  }
}

fragment ConsoleFleetNode on FleetNode {
  id
  name
  lifecycle
  readiness
  conditions {
    type
    status
    reason
    message
    lastTransitionAt
  }
  cordoned
  actions {
    action
    allowed
    reason
  }
  labels {
    key
    value
  }
  taints {
    key
    value
    effect
  }
  address
  sshPort
  hostKeyFingerprint
  keyId
  nextKeyId
  credentialSerial
  credentialExpiresAt
  leaseRenewedAt
  leaseExpiresAt
  heartbeatAgeSeconds
  architecture
  cpuCores
  systemMemoryBytes
  agentVersion
  agentProtocol
  agentOutdated
  agentOutdatedReason
  gpus {
    index
    name
    uuid
    memoryModel
    memorySource
    totalMemoryBytes
    freeMemoryBytes
    computeCapability
  }
  gpuTelemetry {
    uuid
    index
    sampledAt
    utilizationPercent
    memoryUsedBytes
    memoryTotalBytes
    memorySource
    temperatureCelsius
    powerWatts
    powerLimitWatts
    throttleReasons
    eccUncorrectedErrors
    lastXid
    lastError
    lost
    processMemoryBytes
    processCount
  }
  assignments {
    id
    deploymentId
    nodeName
    generation
    intent
    leaseExpiresAt
    ackedGeneration
    observedState
    observedGeneration
    endpointPort
    inFlight
    message
    observedAt
  }
  enrollWorkflowId
  temporalUiUrl
  enrolledAt
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/nodes.graphql. */
export type ConsoleNodeRecoveriesQuery = {
  readonly auditEvents: {
    readonly events: readonly {
      readonly seq: number;
      readonly action: string;
      readonly occurredAt: Schema.DateTimeString;
      readonly workflowId: string | null;
      readonly temporalUiUrl: string | null;
      readonly evidenceJson: string;
    }[];
  };
};

export type ConsoleNodeRecoveriesQueryVariables = {
  readonly nodeId: string;
};

export const ConsoleNodeRecoveriesDocument: TypedDocument<
  ConsoleNodeRecoveriesQuery,
  ConsoleNodeRecoveriesQueryVariables
> = {
  operationName: 'ConsoleNodeRecoveries',
  document: `query ConsoleNodeRecoveries($nodeId: String!) {
  auditEvents(filter: {action: "node.recovery.*", subject: $nodeId}, first: 20) {
    events {
      seq
      action
      occurredAt
      workflowId
      temporalUiUrl
      evidenceJson
    }
  }
}`,
};

/** From libs/sdk/graphql/console/overview.graphql. */
export type ConsoleSystemHealthQuery = {
  readonly health: {
    readonly status: string;
    readonly version: string;
    readonly commit: string;
    readonly checks: readonly {
      readonly name: string;
      readonly status: string;
      readonly detail: string | null;
      readonly latencyMs: number | null;
    }[];
  };
};

export type ConsoleSystemHealthQueryVariables = Record<string, never>;

export const ConsoleSystemHealthDocument: TypedDocument<
  ConsoleSystemHealthQuery,
  ConsoleSystemHealthQueryVariables
> = {
  operationName: 'ConsoleSystemHealth',
  document: `query ConsoleSystemHealth {
  health {
    status
    version
    commit
    checks {
      name
      status
      detail
      latencyMs
    }
  }
}`,
};

/** From libs/sdk/graphql/console/overview.graphql. */
export type ConsoleRecentSystemChecksQuery = {
  readonly recentPings: readonly {
    readonly id: string;
    readonly workflowId: string;
    readonly message: string;
    readonly actor: string;
    readonly correlationId: string;
    readonly createdAt: Schema.DateTimeString;
    readonly temporalUiUrl: string;
  }[];
};

export type ConsoleRecentSystemChecksQueryVariables = {
  readonly limit: number;
};

export const ConsoleRecentSystemChecksDocument: TypedDocument<
  ConsoleRecentSystemChecksQuery,
  ConsoleRecentSystemChecksQueryVariables
> = {
  operationName: 'ConsoleRecentSystemChecks',
  document: `query ConsoleRecentSystemChecks($limit: Int!) {
  recentPings(limit: $limit) {
    id
    workflowId
    message
    actor
    correlationId
    createdAt
    temporalUiUrl
  }
}`,
};

/** From libs/sdk/graphql/console/overview.graphql. */
export type ConsoleFleetCapacityQuery = {
  readonly nodes: readonly {
    readonly id: string;
    readonly name: string;
    readonly lifecycle: string;
    readonly readiness: string;
    readonly heartbeatAgeSeconds: number | null;
    readonly gpus: readonly {
      readonly memoryModel: string;
      readonly memorySource: string;
      readonly totalMemoryBytes: number | null;
      readonly freeMemoryBytes: number | null;
    }[];
  }[];
};

export type ConsoleFleetCapacityQueryVariables = Record<string, never>;

export const ConsoleFleetCapacityDocument: TypedDocument<
  ConsoleFleetCapacityQuery,
  ConsoleFleetCapacityQueryVariables
> = {
  operationName: 'ConsoleFleetCapacity',
  document: `query ConsoleFleetCapacity {
  nodes {
    id
    name
    lifecycle
    readiness
    heartbeatAgeSeconds
    gpus {
      memoryModel
      memorySource
      totalMemoryBytes
      freeMemoryBytes
    }
  }
}`,
};

/** From libs/sdk/graphql/console/overview.graphql. */
export type ConsoleOverviewTrafficQuery = {
  readonly traffic: {
    readonly bucketSeconds: number;
    readonly inFlightNow: number;
    readonly buckets: readonly {
      readonly start: Schema.DateTimeString;
      readonly requests: number;
      readonly requestsPerSecond: number;
    }[];
    readonly totals: {
      readonly requests: number;
      readonly errors: number;
    };
  };
};

export type ConsoleOverviewTrafficQueryVariables = {
  readonly windowMinutes: number;
  readonly bucketSeconds: number;
};

export const ConsoleOverviewTrafficDocument: TypedDocument<
  ConsoleOverviewTrafficQuery,
  ConsoleOverviewTrafficQueryVariables
> = {
  operationName: 'ConsoleOverviewTraffic',
  document: `query ConsoleOverviewTraffic($windowMinutes: Int!, $bucketSeconds: Int!) {
  traffic(windowMinutes: $windowMinutes, bucketSeconds: $bucketSeconds) {
    bucketSeconds
    inFlightNow
    buckets {
      start
      requests
      requestsPerSecond
    }
    totals {
      requests
      errors
    }
  }
}`,
};

/** From libs/sdk/graphql/console/overview.graphql. */
export type ConsoleOverviewDeploymentsQuery = {
  readonly deployments: readonly {
    readonly id: string;
    readonly name: string;
    readonly modelRef: string;
    readonly state: string;
    readonly readyReplicas: number;
    readonly desiredReplicas: number;
  }[];
};

export type ConsoleOverviewDeploymentsQueryVariables = Record<string, never>;

export const ConsoleOverviewDeploymentsDocument: TypedDocument<
  ConsoleOverviewDeploymentsQuery,
  ConsoleOverviewDeploymentsQueryVariables
> = {
  operationName: 'ConsoleOverviewDeployments',
  document: `query ConsoleOverviewDeployments {
  deployments {
    id
    name
    modelRef
    state
    readyReplicas
    desiredReplicas
  }
}`,
};

/** From libs/sdk/graphql/console/overview.graphql. */
export type ConsoleWorkflowAlertsQuery = {
  readonly workflowAlerts: readonly {
    readonly workflowId: string;
    readonly runId: string;
    readonly workflowType: string;
    readonly status: string;
    readonly closedAt: Schema.DateTimeString | null;
    readonly temporalUiUrl: string;
  }[];
};

export type ConsoleWorkflowAlertsQueryVariables = {
  readonly hours: number;
  readonly limit: number;
};

export const ConsoleWorkflowAlertsDocument: TypedDocument<
  ConsoleWorkflowAlertsQuery,
  ConsoleWorkflowAlertsQueryVariables
> = {
  operationName: 'ConsoleWorkflowAlerts',
  document: `query ConsoleWorkflowAlerts($hours: Int!, $limit: Int!) {
  workflowAlerts(hours: $hours, limit: $limit) {
    workflowId
    runId
    workflowType
    status
    closedAt
    temporalUiUrl
  }
}`,
};

/** From libs/sdk/graphql/console/overview.graphql. */
export type ConsoleRecentChangesQuery = {
  readonly auditEvents: {
    readonly events: readonly {
      readonly seq: number;
      readonly occurredAt: Schema.DateTimeString;
      readonly actor: string;
      readonly action: string;
      readonly decision: string;
      readonly result: string;
    }[];
  };
};

export type ConsoleRecentChangesQueryVariables = {
  readonly first: number;
};

export const ConsoleRecentChangesDocument: TypedDocument<
  ConsoleRecentChangesQuery,
  ConsoleRecentChangesQueryVariables
> = {
  operationName: 'ConsoleRecentChanges',
  document: `query ConsoleRecentChanges($first: Int!) {
  auditEvents(first: $first) {
    events {
      seq
      occurredAt
      actor
      action
      decision
      result
    }
  }
}`,
};

/** From libs/sdk/graphql/console/overview.graphql. */
export type ConsoleTryItQuery = {
  readonly gatewayEndpoint: string;
  readonly alias: {
    readonly currentRevision: number;
  } | null;
  readonly tenant: {
    readonly id: string;
  } | null;
};

export type ConsoleTryItQueryVariables = Record<string, never>;

export const ConsoleTryItDocument: TypedDocument<ConsoleTryItQuery, ConsoleTryItQueryVariables> = {
  operationName: 'ConsoleTryIt',
  document: `query ConsoleTryIt {
  gatewayEndpoint
  alias(alias: "demo-chat") {
    currentRevision
  }
  tenant(id: "demo") {
    id
  }
}`,
};

/** From libs/sdk/graphql/console/policies.graphql. */
export type ConsolePoliciesQuery = {
  readonly dataPolicies: readonly ConsoleDataPolicyFragment[];
  readonly runtimes: readonly ConsoleRuntimeFragment[];
  readonly trustedSigningKeys: readonly ConsoleSigningKeyFragment[];
};

export type ConsolePoliciesQueryVariables = Record<string, never>;

export const ConsolePoliciesDocument: TypedDocument<ConsolePoliciesQuery, ConsolePoliciesQueryVariables> = {
  operationName: 'ConsolePolicies',
  document: `query ConsolePolicies {
  dataPolicies {
    ...ConsoleDataPolicy
  }
  runtimes {
    ...ConsoleRuntime
  }
  trustedSigningKeys {
    ...ConsoleSigningKey
  }
}

fragment ConsoleDataPolicy on DataPolicy {
  tenantId
  dataClass
  retentionMode
  retentionDays
  evaluationCaptureConsent
  configured
  updatedBy
  updatedAt
}

fragment ConsoleRuntime on Runtime {
  id
  name
  version
  kind
  allowed
  createdBy
  updatedAt
  packaging {
    type
    image
    digest
  }
}

fragment ConsoleSigningKey on TrustedSigningKey {
  keyId
  label
  algorithm
  createdAt
  createdBy
  revokedAt
  revokedBy
}`,
};

/** From libs/sdk/graphql/console/policies.graphql. */
export type ConsoleRegisterSigningKeyMutation = {
  readonly registerSigningKey: ConsoleSigningKeyFragment;
};

export type ConsoleRegisterSigningKeyMutationVariables = {
  readonly input: Schema.RegisterSigningKeyInput;
};

export const ConsoleRegisterSigningKeyDocument: TypedDocument<
  ConsoleRegisterSigningKeyMutation,
  ConsoleRegisterSigningKeyMutationVariables
> = {
  operationName: 'ConsoleRegisterSigningKey',
  document: `mutation ConsoleRegisterSigningKey($input: RegisterSigningKeyInput!) {
  registerSigningKey(input: $input) {
    ...ConsoleSigningKey
  }
}

fragment ConsoleSigningKey on TrustedSigningKey {
  keyId
  label
  algorithm
  createdAt
  createdBy
  revokedAt
  revokedBy
}`,
};

/** From libs/sdk/graphql/console/policies.graphql. */
export type ConsoleRevokeSigningKeyMutation = {
  readonly revokeSigningKey: ConsoleSigningKeyFragment;
};

export type ConsoleRevokeSigningKeyMutationVariables = {
  readonly keyId: string;
};

export const ConsoleRevokeSigningKeyDocument: TypedDocument<
  ConsoleRevokeSigningKeyMutation,
  ConsoleRevokeSigningKeyMutationVariables
> = {
  operationName: 'ConsoleRevokeSigningKey',
  document: `mutation ConsoleRevokeSigningKey($keyId: String!) {
  revokeSigningKey(keyId: $keyId) {
    ...ConsoleSigningKey
  }
}

fragment ConsoleSigningKey on TrustedSigningKey {
  keyId
  label
  algorithm
  createdAt
  createdBy
  revokedAt
  revokedBy
}`,
};

/** From libs/sdk/graphql/console/policies.graphql. */
export type ConsoleTenantSigningPolicyQuery = {
  readonly tenantSigningPolicy: {
    readonly tenantId: string;
    readonly allowUnsignedVersions: boolean;
  } | null;
};

export type ConsoleTenantSigningPolicyQueryVariables = {
  readonly tenantId: string;
};

export const ConsoleTenantSigningPolicyDocument: TypedDocument<
  ConsoleTenantSigningPolicyQuery,
  ConsoleTenantSigningPolicyQueryVariables
> = {
  operationName: 'ConsoleTenantSigningPolicy',
  document: `query ConsoleTenantSigningPolicy($tenantId: String!) {
  tenantSigningPolicy(tenantId: $tenantId) {
    tenantId
    allowUnsignedVersions
  }
}`,
};

/** From libs/sdk/graphql/console/policies.graphql. */
export type ConsoleSetTenantUnsignedPolicyMutation = {
  readonly setTenantUnsignedPolicy: {
    readonly tenantId: string;
    readonly allowUnsignedVersions: boolean;
  };
};

export type ConsoleSetTenantUnsignedPolicyMutationVariables = {
  readonly tenantId: string;
  readonly allowUnsignedVersions: boolean;
};

export const ConsoleSetTenantUnsignedPolicyDocument: TypedDocument<
  ConsoleSetTenantUnsignedPolicyMutation,
  ConsoleSetTenantUnsignedPolicyMutationVariables
> = {
  operationName: 'ConsoleSetTenantUnsignedPolicy',
  document: `mutation ConsoleSetTenantUnsignedPolicy($tenantId: String!, $allowUnsignedVersions: Boolean!) {
  setTenantUnsignedPolicy(
    tenantId: $tenantId
    allowUnsignedVersions: $allowUnsignedVersions
  ) {
    tenantId
    allowUnsignedVersions
  }
}`,
};

/** From libs/sdk/graphql/console/policies.graphql. */
export type ConsoleSetDataPolicyMutation = {
  readonly setDataPolicy: ConsoleDataPolicyFragment;
};

export type ConsoleSetDataPolicyMutationVariables = {
  readonly input: Schema.SetDataPolicyInput;
};

export const ConsoleSetDataPolicyDocument: TypedDocument<
  ConsoleSetDataPolicyMutation,
  ConsoleSetDataPolicyMutationVariables
> = {
  operationName: 'ConsoleSetDataPolicy',
  document: `mutation ConsoleSetDataPolicy($input: SetDataPolicyInput!) {
  setDataPolicy(input: $input) {
    ...ConsoleDataPolicy
  }
}

fragment ConsoleDataPolicy on DataPolicy {
  tenantId
  dataClass
  retentionMode
  retentionDays
  evaluationCaptureConsent
  configured
  updatedBy
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/policies.graphql. */
export type ConsoleSetRuntimeAllowedMutation = {
  readonly setRuntimeAllowed: ConsoleRuntimeFragment;
};

export type ConsoleSetRuntimeAllowedMutationVariables = {
  readonly id: string;
  readonly allowed: boolean;
};

export const ConsoleSetRuntimeAllowedDocument: TypedDocument<
  ConsoleSetRuntimeAllowedMutation,
  ConsoleSetRuntimeAllowedMutationVariables
> = {
  operationName: 'ConsoleSetRuntimeAllowed',
  document: `mutation ConsoleSetRuntimeAllowed($id: ID!, $allowed: Boolean!) {
  setRuntimeAllowed(id: $id, allowed: $allowed) {
    ...ConsoleRuntime
  }
}

fragment ConsoleRuntime on Runtime {
  id
  name
  version
  kind
  allowed
  createdBy
  updatedAt
  packaging {
    type
    image
    digest
  }
}`,
};

/** From libs/sdk/graphql/console/registry.graphql. */
export type ConsoleRegistryQuery = {
  readonly licenses: readonly ConsoleRegistryLicenseFragment[];
  readonly runtimes: readonly ConsoleRegistryRuntimeFragment[];
  readonly evaluationSuites: readonly ConsoleRegistrySuiteFragment[];
  readonly benchmarkProfiles: readonly ConsoleRegistryProfileFragment[];
  readonly models: readonly {
    readonly id: string;
    readonly versions: readonly {
      readonly id: string;
      readonly ref: string;
      readonly state: string;
      readonly license: {
        readonly name: string;
      };
      readonly runtime: {
        readonly id: string;
      };
    }[];
  }[];
};

export type ConsoleRegistryQueryVariables = Record<string, never>;

export const ConsoleRegistryDocument: TypedDocument<ConsoleRegistryQuery, ConsoleRegistryQueryVariables> = {
  operationName: 'ConsoleRegistry',
  document: `query ConsoleRegistry {
  licenses {
    ...ConsoleRegistryLicense
  }
  runtimes {
    ...ConsoleRegistryRuntime
  }
  evaluationSuites {
    ...ConsoleRegistrySuite
  }
  benchmarkProfiles {
    ...ConsoleRegistryProfile
  }
  models {
    id
    versions {
      id
      ref
      state
      license {
        name
      }
      runtime {
        id
      }
    }
  }
}

fragment ConsoleRegistryLicense on License {
  id
  name
  kind
  spdxId
  customName
  termsUri
  termsDigest
  commercialUse
  allowedDataClasses
  attribution
  approvalState
  decidedBy
  decidedAt
  note
  createdBy
  createdAt
}

fragment ConsoleRegistryRuntime on Runtime {
  id
  name
  version
  kind
  allowed
  metricsFormat
  createdBy
  createdAt
  updatedAt
  packaging {
    type
    image
    digest
  }
  launch {
    executable
    args
  }
  supportedHardware {
    architectures
    memoryModels
    gpusPerReplica
    minComputeCapability
  }
}

fragment ConsoleRegistrySuite on EvaluationSuite {
  id
  name
  description
  digest
  caseCount
  passThreshold
  concurrency
  caseTimeoutSeconds
  createdBy
  createdAt
}

fragment ConsoleRegistryProfile on BenchmarkProfile {
  id
  name
  description
  digest
  concurrency
  inputTokens
  outputTokens
  durationSeconds
  requestCount
  requestTimeoutSeconds
  maxErrorRate
  maxTtftP95Ms
  minTokensPerSecond
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/console/registry.graphql. */
export type ConsoleCreateLicenseMutation = {
  readonly createLicense: ConsoleRegistryLicenseFragment;
};

export type ConsoleCreateLicenseMutationVariables = {
  readonly input: Schema.CreateLicenseInput;
};

export const ConsoleCreateLicenseDocument: TypedDocument<
  ConsoleCreateLicenseMutation,
  ConsoleCreateLicenseMutationVariables
> = {
  operationName: 'ConsoleCreateLicense',
  document: `mutation ConsoleCreateLicense($input: CreateLicenseInput!) {
  createLicense(input: $input) {
    ...ConsoleRegistryLicense
  }
}

fragment ConsoleRegistryLicense on License {
  id
  name
  kind
  spdxId
  customName
  termsUri
  termsDigest
  commercialUse
  allowedDataClasses
  attribution
  approvalState
  decidedBy
  decidedAt
  note
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/console/registry.graphql. */
export type ConsoleApproveLicenseMutation = {
  readonly license: ConsoleRegistryLicenseFragment;
};

export type ConsoleApproveLicenseMutationVariables = {
  readonly name: string;
  readonly note: string;
};

export const ConsoleApproveLicenseDocument: TypedDocument<
  ConsoleApproveLicenseMutation,
  ConsoleApproveLicenseMutationVariables
> = {
  operationName: 'ConsoleApproveLicense',
  document: `mutation ConsoleApproveLicense($name: String!, $note: String!) {
  license: approveLicense(name: $name, note: $note) {
    ...ConsoleRegistryLicense
  }
}

fragment ConsoleRegistryLicense on License {
  id
  name
  kind
  spdxId
  customName
  termsUri
  termsDigest
  commercialUse
  allowedDataClasses
  attribution
  approvalState
  decidedBy
  decidedAt
  note
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/console/registry.graphql. */
export type ConsoleRejectLicenseMutation = {
  readonly license: ConsoleRegistryLicenseFragment;
};

export type ConsoleRejectLicenseMutationVariables = {
  readonly name: string;
  readonly note: string;
};

export const ConsoleRejectLicenseDocument: TypedDocument<
  ConsoleRejectLicenseMutation,
  ConsoleRejectLicenseMutationVariables
> = {
  operationName: 'ConsoleRejectLicense',
  document: `mutation ConsoleRejectLicense($name: String!, $note: String!) {
  license: rejectLicense(name: $name, note: $note) {
    ...ConsoleRegistryLicense
  }
}

fragment ConsoleRegistryLicense on License {
  id
  name
  kind
  spdxId
  customName
  termsUri
  termsDigest
  commercialUse
  allowedDataClasses
  attribution
  approvalState
  decidedBy
  decidedAt
  note
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/console/registry.graphql. */
export type ConsoleRegisterRuntimeMutation = {
  readonly registerRuntime: ConsoleRegistryRuntimeFragment;
};

export type ConsoleRegisterRuntimeMutationVariables = {
  readonly input: Schema.RegisterRuntimeInput;
};

export const ConsoleRegisterRuntimeDocument: TypedDocument<
  ConsoleRegisterRuntimeMutation,
  ConsoleRegisterRuntimeMutationVariables
> = {
  operationName: 'ConsoleRegisterRuntime',
  document: `mutation ConsoleRegisterRuntime($input: RegisterRuntimeInput!) {
  registerRuntime(input: $input) {
    ...ConsoleRegistryRuntime
  }
}

fragment ConsoleRegistryRuntime on Runtime {
  id
  name
  version
  kind
  allowed
  metricsFormat
  createdBy
  createdAt
  updatedAt
  packaging {
    type
    image
    digest
  }
  launch {
    executable
    args
  }
  supportedHardware {
    architectures
    memoryModels
    gpusPerReplica
    minComputeCapability
  }
}`,
};

/** From libs/sdk/graphql/console/registry.graphql. */
export type ConsoleCreateEvaluationSuiteMutation = {
  readonly createEvaluationSuite: ConsoleRegistrySuiteFragment;
};

export type ConsoleCreateEvaluationSuiteMutationVariables = {
  readonly input: Schema.CreateEvaluationSuiteInput;
};

export const ConsoleCreateEvaluationSuiteDocument: TypedDocument<
  ConsoleCreateEvaluationSuiteMutation,
  ConsoleCreateEvaluationSuiteMutationVariables
> = {
  operationName: 'ConsoleCreateEvaluationSuite',
  document: `mutation ConsoleCreateEvaluationSuite($input: CreateEvaluationSuiteInput!) {
  createEvaluationSuite(input: $input) {
    ...ConsoleRegistrySuite
  }
}

fragment ConsoleRegistrySuite on EvaluationSuite {
  id
  name
  description
  digest
  caseCount
  passThreshold
  concurrency
  caseTimeoutSeconds
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/console/registry.graphql. */
export type ConsoleCreateBenchmarkProfileMutation = {
  readonly createBenchmarkProfile: ConsoleRegistryProfileFragment;
};

export type ConsoleCreateBenchmarkProfileMutationVariables = {
  readonly input: Schema.CreateBenchmarkProfileInput;
};

export const ConsoleCreateBenchmarkProfileDocument: TypedDocument<
  ConsoleCreateBenchmarkProfileMutation,
  ConsoleCreateBenchmarkProfileMutationVariables
> = {
  operationName: 'ConsoleCreateBenchmarkProfile',
  document: `mutation ConsoleCreateBenchmarkProfile($input: CreateBenchmarkProfileInput!) {
  createBenchmarkProfile(input: $input) {
    ...ConsoleRegistryProfile
  }
}

fragment ConsoleRegistryProfile on BenchmarkProfile {
  id
  name
  description
  digest
  concurrency
  inputTokens
  outputTokens
  durationSeconds
  requestCount
  requestTimeoutSeconds
  maxErrorRate
  maxTtftP95Ms
  minTokensPerSecond
  createdBy
  createdAt
}`,
};

/** From libs/sdk/graphql/console/requests.graphql. */
export type ConsoleRequestsTrafficQuery = {
  readonly traffic: {
    readonly windowStart: Schema.DateTimeString;
    readonly windowEnd: Schema.DateTimeString;
    readonly bucketSeconds: number;
    readonly inFlightNow: number;
    readonly queuedNow: number;
    readonly buckets: readonly {
      readonly start: Schema.DateTimeString;
      readonly requests: number;
      readonly errors: number;
      readonly requestsPerSecond: number;
      readonly meanConcurrency: number;
      readonly latencyP50Ms: number | null;
      readonly latencyP95Ms: number | null;
      readonly latencyP99Ms: number | null;
      readonly ttftP50Ms: number | null;
      readonly ttftP95Ms: number | null;
      readonly completionTokens: number;
      readonly promptTokens: number;
      readonly rateLimited: number;
    }[];
    readonly totals: {
      readonly start: Schema.DateTimeString;
      readonly requests: number;
      readonly errors: number;
      readonly requestsPerSecond: number;
      readonly meanConcurrency: number;
      readonly latencyP50Ms: number | null;
      readonly latencyP95Ms: number | null;
      readonly latencyP99Ms: number | null;
      readonly ttftP50Ms: number | null;
      readonly ttftP95Ms: number | null;
      readonly completionTokens: number;
      readonly promptTokens: number;
      readonly rateLimited: number;
    };
    readonly deployments: readonly {
      readonly deploymentId: string | null;
      readonly deploymentName: string | null;
      readonly modelRef: string | null;
      readonly inFlightNow: number;
      readonly queuedNow: number;
      readonly totals: {
        readonly start: Schema.DateTimeString;
        readonly requests: number;
        readonly errors: number;
        readonly requestsPerSecond: number;
        readonly meanConcurrency: number;
        readonly latencyP50Ms: number | null;
        readonly latencyP95Ms: number | null;
        readonly latencyP99Ms: number | null;
        readonly ttftP50Ms: number | null;
        readonly ttftP95Ms: number | null;
        readonly completionTokens: number;
        readonly promptTokens: number;
        readonly rateLimited: number;
      };
    }[];
  };
};

export type ConsoleRequestsTrafficQueryVariables = {
  readonly windowMinutes: number;
  readonly bucketSeconds: number;
  readonly deployment?: string | null;
};

export const ConsoleRequestsTrafficDocument: TypedDocument<
  ConsoleRequestsTrafficQuery,
  ConsoleRequestsTrafficQueryVariables
> = {
  operationName: 'ConsoleRequestsTraffic',
  document: `query ConsoleRequestsTraffic($windowMinutes: Int!, $bucketSeconds: Int!, $deployment: String) {
  traffic(
    windowMinutes: $windowMinutes
    bucketSeconds: $bucketSeconds
    deployment: $deployment
  ) {
    windowStart
    windowEnd
    bucketSeconds
    inFlightNow
    queuedNow
    buckets {
      start
      requests
      errors
      requestsPerSecond
      meanConcurrency
      latencyP50Ms
      latencyP95Ms
      latencyP99Ms
      ttftP50Ms
      ttftP95Ms
      completionTokens
      promptTokens
      rateLimited
    }
    totals {
      start
      requests
      errors
      requestsPerSecond
      meanConcurrency
      latencyP50Ms
      latencyP95Ms
      latencyP99Ms
      ttftP50Ms
      ttftP95Ms
      completionTokens
      promptTokens
      rateLimited
    }
    deployments {
      deploymentId
      deploymentName
      modelRef
      inFlightNow
      queuedNow
      totals {
        start
        requests
        errors
        requestsPerSecond
        meanConcurrency
        latencyP50Ms
        latencyP95Ms
        latencyP99Ms
        ttftP50Ms
        ttftP95Ms
        completionTokens
        promptTokens
        rateLimited
        promptTokens
        rateLimited
      }
    }
  }
}`,
};

/** From libs/sdk/graphql/console/requests.graphql. */
export type ConsoleRequestRecordsQuery = {
  readonly requestRecords: {
    readonly nextBefore: string | null;
    readonly items: readonly {
      readonly id: string;
      readonly requestId: string;
      readonly correlationId: string;
      readonly receivedAt: Schema.DateTimeString;
      readonly finishedAt: Schema.DateTimeString;
      readonly kind: string;
      readonly dialect: string;
      readonly requestedModel: string;
      readonly modelRef: string | null;
      readonly deploymentId: string | null;
      readonly deploymentName: string | null;
      readonly stream: boolean;
      readonly outcome: string;
      readonly errorCode: string | null;
      readonly httpStatus: number;
      readonly timeToFirstTokenMs: number | null;
      readonly durationMs: number;
      readonly promptTokens: number | null;
      readonly completionTokens: number | null;
      readonly tenantId: string | null;
    }[];
  };
};

export type ConsoleRequestRecordsQueryVariables = {
  readonly first: number;
  readonly before?: string | null;
  readonly filter?: Schema.RequestRecordFilter | null;
};

export const ConsoleRequestRecordsDocument: TypedDocument<
  ConsoleRequestRecordsQuery,
  ConsoleRequestRecordsQueryVariables
> = {
  operationName: 'ConsoleRequestRecords',
  document: `query ConsoleRequestRecords($first: Int!, $before: String, $filter: RequestRecordFilter) {
  requestRecords(first: $first, before: $before, filter: $filter) {
    nextBefore
    items {
      id
      requestId
      correlationId
      receivedAt
      finishedAt
      kind
      dialect
      requestedModel
      modelRef
      deploymentId
      deploymentName
      stream
      outcome
      errorCode
      httpStatus
      timeToFirstTokenMs
      durationMs
      promptTokens
      completionTokens
      tenantId
    }
  }
}`,
};

/** From libs/sdk/graphql/console/requests.graphql. */
export type ConsoleRequestsDeploymentsQuery = {
  readonly deployments: readonly {
    readonly id: string;
    readonly name: string;
    readonly modelRef: string;
    readonly state: string;
    readonly readyReplicas: number;
    readonly desiredReplicas: number;
  }[];
};

export type ConsoleRequestsDeploymentsQueryVariables = Record<string, never>;

export const ConsoleRequestsDeploymentsDocument: TypedDocument<
  ConsoleRequestsDeploymentsQuery,
  ConsoleRequestsDeploymentsQueryVariables
> = {
  operationName: 'ConsoleRequestsDeployments',
  document: `query ConsoleRequestsDeployments {
  deployments {
    id
    name
    modelRef
    state
    readyReplicas
    desiredReplicas
  }
}`,
};

/** From libs/sdk/graphql/console/rollouts.graphql. */
export type ConsoleAliasesQuery = {
  readonly aliases: readonly ConsoleAliasFragment[];
};

export type ConsoleAliasesQueryVariables = Record<string, never>;

export const ConsoleAliasesDocument: TypedDocument<ConsoleAliasesQuery, ConsoleAliasesQueryVariables> = {
  operationName: 'ConsoleAliases',
  document: `query ConsoleAliases {
  aliases {
    ...ConsoleAlias
  }
}

fragment ConsoleAlias on Alias {
  id
  name
  description
  dataClass
  currentRevision
  canaryWeight
  canaryDeploymentId
  createdBy
  createdAt
  updatedAt
  current {
    revision
    modelRef
    modelVersionId
    deploymentId
    deploymentName
    reason
    restoredFrom
    rolloutId
    createdBy
    createdAt
  }
  activeRollout {
    ...ConsoleRollout
  }
}

fragment ConsoleRollout on Rollout {
  id
  alias
  modelRef
  state
  currentStep
  currentWeight
  steps
  createdAt
}`,
};

/** From libs/sdk/graphql/console/rollouts.graphql. */
export type ConsoleAliasQuery = {
  readonly alias: {
    readonly id: string;
    readonly name: string;
    readonly description: string | null;
    readonly dataClass: string;
    readonly currentRevision: number;
    readonly canaryWeight: number;
    readonly canaryDeploymentId: string | null;
    readonly createdBy: string;
    readonly createdAt: string;
    readonly updatedAt: string;
    readonly current: {
      readonly revision: number;
      readonly modelRef: string;
      readonly modelVersionId: string;
      readonly deploymentId: string;
      readonly deploymentName: string | null;
      readonly reason: string;
      readonly restoredFrom: number | null;
      readonly rolloutId: string | null;
      readonly createdBy: string;
      readonly createdAt: string;
    } | null;
    readonly activeRollout: ConsoleRolloutFragment | null;
    readonly revisions: readonly {
      readonly revision: number;
      readonly modelRef: string;
      readonly modelVersionId: string;
      readonly deploymentId: string;
      readonly deploymentName: string | null;
      readonly reason: string;
      readonly restoredFrom: number | null;
      readonly rolloutId: string | null;
      readonly createdBy: string;
      readonly createdAt: string;
    }[];
  } | null;
  readonly rollouts: readonly ConsoleRolloutFragment[];
};

export type ConsoleAliasQueryVariables = {
  readonly alias: string;
  readonly limit?: number | null;
};

export const ConsoleAliasDocument: TypedDocument<ConsoleAliasQuery, ConsoleAliasQueryVariables> = {
  operationName: 'ConsoleAlias',
  document: `query ConsoleAlias($alias: String!, $limit: Int) {
  alias(alias: $alias) {
    id
    name
    description
    dataClass
    currentRevision
    canaryWeight
    canaryDeploymentId
    createdBy
    createdAt
    updatedAt
    current {
      revision
      modelRef
      modelVersionId
      deploymentId
      deploymentName
      reason
      restoredFrom
      rolloutId
      createdBy
      createdAt
    }
    activeRollout {
      ...ConsoleRollout
    }
    revisions {
      revision
      modelRef
      modelVersionId
      deploymentId
      deploymentName
      reason
      restoredFrom
      rolloutId
      createdBy
      createdAt
    }
  }
  rollouts(alias: $alias, limit: $limit) {
    ...ConsoleRollout
  }
}

fragment ConsoleRollout on Rollout {
  id
  alias
  modelRef
  state
  currentStep
  currentWeight
  steps
  createdAt
}`,
};

/** From libs/sdk/graphql/console/rollouts.graphql. */
export type ConsoleRolloutQuery = {
  readonly rollout: {
    readonly id: string;
    readonly alias: string;
    readonly modelRef: string;
    readonly baseRevision: number;
    readonly state: string;
    readonly actions: readonly {
      readonly action: Schema.RolloutAction;
      readonly allowed: boolean;
      readonly reason: string | null;
    }[];
    readonly stateReason: string | null;
    readonly refusalCode: string | null;
    readonly steps: readonly number[];
    readonly currentStep: number;
    readonly currentWeight: number;
    readonly analysisWindowSeconds: number;
    readonly samplesPerStep: number;
    readonly maxWindowsPerStep: number;
    readonly bakeSeconds: number;
    readonly replicas: number;
    readonly maxErrorRateIncrease: number;
    readonly maxP95LatencyRatio: number;
    readonly p95SlackMs: number;
    readonly maxEvaluationScoreDrop: number;
    readonly canaryDeploymentId: string | null;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly createdBy: string;
    readonly createdAt: string;
    readonly updatedAt: string;
    readonly finishedAt: string | null;
    readonly analyses: readonly {
      readonly step: number;
      readonly weight: number;
      readonly window: number;
      readonly verdict: string;
      readonly reasons: readonly string[];
      readonly canaryRequests: number;
      readonly canaryErrors: number;
      readonly canaryErrorRate: number;
      readonly canaryP95Ms: number | null;
      readonly stableRequests: number | null;
      readonly stableErrorRate: number | null;
      readonly stableP95Ms: number | null;
      readonly canaryEvaluationScore: number | null;
      readonly stableEvaluationScore: number | null;
    }[];
    readonly receipts: readonly {
      readonly seq: number;
      readonly action: string;
      readonly decision: string;
      readonly result: string;
      readonly evidenceJson: string;
      readonly hash: string;
      readonly occurredAt: string;
      readonly actor: string;
    }[];
  } | null;
  readonly workflowAlerts: readonly {
    readonly workflowId: string;
    readonly status: string;
    readonly closedAt: Schema.DateTimeString | null;
    readonly temporalUiUrl: string;
  }[];
};

export type ConsoleRolloutQueryVariables = {
  readonly id: string;
};

export const ConsoleRolloutDocument: TypedDocument<ConsoleRolloutQuery, ConsoleRolloutQueryVariables> = {
  operationName: 'ConsoleRollout',
  document: `query ConsoleRollout($id: ID!) {
  rollout(id: $id) {
    id
    alias
    modelRef
    baseRevision
    state
    actions {
      action
      allowed
      reason
    }
    stateReason
    refusalCode
    steps
    currentStep
    currentWeight
    analysisWindowSeconds
    samplesPerStep
    maxWindowsPerStep
    bakeSeconds
    replicas
    maxErrorRateIncrease
    maxP95LatencyRatio
    p95SlackMs
    maxEvaluationScoreDrop
    canaryDeploymentId
    workflowId
    temporalUiUrl
    createdBy
    createdAt
    updatedAt
    finishedAt
    analyses {
      step
      weight
      window
      verdict
      reasons
      canaryRequests
      canaryErrors
      canaryErrorRate
      canaryP95Ms
      stableRequests
      stableErrorRate
      stableP95Ms
      canaryEvaluationScore
      stableEvaluationScore
    }
    receipts {
      seq
      action
      decision
      result
      evidenceJson
      hash
      occurredAt
      actor
    }
  }
  workflowAlerts(hours: 24, limit: 50) {
    workflowId
    status
    closedAt
    temporalUiUrl
  }
}`,
};

/** From libs/sdk/graphql/console/rollouts.graphql. */
export type ConsoleRolloutChoicesQuery = {
  readonly aliases: readonly {
    readonly id: string;
    readonly name: string;
    readonly dataClass: string;
    readonly currentRevision: number;
    readonly current: {
      readonly revision: number;
      readonly modelRef: string;
      readonly modelVersionId: string;
      readonly deploymentId: string;
      readonly deploymentName: string | null;
      readonly reason: string;
      readonly restoredFrom: number | null;
      readonly rolloutId: string | null;
      readonly createdBy: string;
      readonly createdAt: string;
    } | null;
    readonly activeRollout: ConsoleRolloutFragment | null;
  }[];
  readonly modelVersions: readonly {
    readonly id: string;
    readonly ref: string;
    readonly model: string;
    readonly version: string;
    readonly runtimeKind: string;
  }[];
};

export type ConsoleRolloutChoicesQueryVariables = Record<string, never>;

export const ConsoleRolloutChoicesDocument: TypedDocument<
  ConsoleRolloutChoicesQuery,
  ConsoleRolloutChoicesQueryVariables
> = {
  operationName: 'ConsoleRolloutChoices',
  document: `query ConsoleRolloutChoices {
  aliases {
    id
    name
    dataClass
    currentRevision
    current {
      revision
      modelRef
      modelVersionId
      deploymentId
      deploymentName
      reason
      restoredFrom
      rolloutId
      createdBy
      createdAt
    }
    activeRollout {
      ...ConsoleRollout
    }
  }
  modelVersions {
    id
    ref
    model
    version
    runtimeKind
  }
}

fragment ConsoleRollout on Rollout {
  id
  alias
  modelRef
  state
  currentStep
  currentWeight
  steps
  createdAt
}`,
};

/** From libs/sdk/graphql/console/rollouts.graphql. */
export type ConsoleCreateAliasMutation = {
  readonly createAlias: ConsoleAliasFragment;
};

export type ConsoleCreateAliasMutationVariables = {
  readonly input: Schema.CreateAliasInput;
};

export const ConsoleCreateAliasDocument: TypedDocument<
  ConsoleCreateAliasMutation,
  ConsoleCreateAliasMutationVariables
> = {
  operationName: 'ConsoleCreateAlias',
  document: `mutation ConsoleCreateAlias($input: CreateAliasInput!) {
  createAlias(input: $input) {
    ...ConsoleAlias
  }
}

fragment ConsoleAlias on Alias {
  id
  name
  description
  dataClass
  currentRevision
  canaryWeight
  canaryDeploymentId
  createdBy
  createdAt
  updatedAt
  current {
    revision
    modelRef
    modelVersionId
    deploymentId
    deploymentName
    reason
    restoredFrom
    rolloutId
    createdBy
    createdAt
  }
  activeRollout {
    ...ConsoleRollout
  }
}

fragment ConsoleRollout on Rollout {
  id
  alias
  modelRef
  state
  currentStep
  currentWeight
  steps
  createdAt
}`,
};

/** From libs/sdk/graphql/console/rollouts.graphql. */
export type ConsoleStartRolloutMutation = {
  readonly startRollout: {
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly correlationId: string;
    readonly rollout: {
      readonly id: string;
      readonly alias: string;
      readonly modelRef: string;
      readonly baseRevision: number;
      readonly state: string;
      readonly actions: readonly {
        readonly action: Schema.RolloutAction;
        readonly allowed: boolean;
        readonly reason: string | null;
      }[];
      readonly stateReason: string | null;
      readonly refusalCode: string | null;
      readonly steps: readonly number[];
      readonly currentStep: number;
      readonly currentWeight: number;
      readonly analysisWindowSeconds: number;
      readonly samplesPerStep: number;
      readonly maxWindowsPerStep: number;
      readonly bakeSeconds: number;
      readonly replicas: number;
      readonly maxErrorRateIncrease: number;
      readonly maxP95LatencyRatio: number;
      readonly p95SlackMs: number;
      readonly maxEvaluationScoreDrop: number;
      readonly canaryDeploymentId: string | null;
      readonly workflowId: string;
      readonly temporalUiUrl: string;
      readonly createdBy: string;
      readonly createdAt: string;
      readonly updatedAt: string;
      readonly finishedAt: string | null;
      readonly analyses: readonly {
        readonly step: number;
        readonly weight: number;
        readonly window: number;
        readonly verdict: string;
        readonly reasons: readonly string[];
        readonly canaryRequests: number;
        readonly canaryErrors: number;
        readonly canaryErrorRate: number;
        readonly canaryP95Ms: number | null;
        readonly stableRequests: number | null;
        readonly stableErrorRate: number | null;
        readonly stableP95Ms: number | null;
        readonly canaryEvaluationScore: number | null;
        readonly stableEvaluationScore: number | null;
      }[];
      readonly receipts: readonly {
        readonly seq: number;
        readonly action: string;
        readonly decision: string;
        readonly result: string;
        readonly evidenceJson: string;
        readonly hash: string;
        readonly occurredAt: string;
        readonly actor: string;
      }[];
    };
  };
};

export type ConsoleStartRolloutMutationVariables = {
  readonly input: Schema.StartRolloutInput;
};

export const ConsoleStartRolloutDocument: TypedDocument<
  ConsoleStartRolloutMutation,
  ConsoleStartRolloutMutationVariables
> = {
  operationName: 'ConsoleStartRollout',
  document: `mutation ConsoleStartRollout($input: StartRolloutInput!) {
  startRollout(input: $input) {
    workflowId
    temporalUiUrl
    correlationId
    rollout {
      id
      alias
      modelRef
      baseRevision
      state
      actions {
        action
        allowed
        reason
      }
      stateReason
      refusalCode
      steps
      currentStep
      currentWeight
      analysisWindowSeconds
      samplesPerStep
      maxWindowsPerStep
      bakeSeconds
      replicas
      maxErrorRateIncrease
      maxP95LatencyRatio
      p95SlackMs
      maxEvaluationScoreDrop
      canaryDeploymentId
      workflowId
      temporalUiUrl
      createdBy
      createdAt
      updatedAt
      finishedAt
      analyses {
        step
        weight
        window
        verdict
        reasons
        canaryRequests
        canaryErrors
        canaryErrorRate
        canaryP95Ms
        stableRequests
        stableErrorRate
        stableP95Ms
        canaryEvaluationScore
        stableEvaluationScore
      }
      receipts {
        seq
        action
        decision
        result
        evidenceJson
        hash
        occurredAt
        actor
      }
    }
  }
}`,
};

/** From libs/sdk/graphql/console/rollouts.graphql. */
export type ConsoleSignalRolloutMutation = {
  readonly signalRollout: {
    readonly id: string;
    readonly alias: string;
    readonly modelRef: string;
    readonly baseRevision: number;
    readonly state: string;
    readonly actions: readonly {
      readonly action: Schema.RolloutAction;
      readonly allowed: boolean;
      readonly reason: string | null;
    }[];
    readonly stateReason: string | null;
    readonly refusalCode: string | null;
    readonly steps: readonly number[];
    readonly currentStep: number;
    readonly currentWeight: number;
    readonly analysisWindowSeconds: number;
    readonly samplesPerStep: number;
    readonly maxWindowsPerStep: number;
    readonly bakeSeconds: number;
    readonly replicas: number;
    readonly maxErrorRateIncrease: number;
    readonly maxP95LatencyRatio: number;
    readonly p95SlackMs: number;
    readonly maxEvaluationScoreDrop: number;
    readonly canaryDeploymentId: string | null;
    readonly workflowId: string;
    readonly temporalUiUrl: string;
    readonly createdBy: string;
    readonly createdAt: string;
    readonly updatedAt: string;
    readonly finishedAt: string | null;
    readonly analyses: readonly {
      readonly step: number;
      readonly weight: number;
      readonly window: number;
      readonly verdict: string;
      readonly reasons: readonly string[];
      readonly canaryRequests: number;
      readonly canaryErrors: number;
      readonly canaryErrorRate: number;
      readonly canaryP95Ms: number | null;
      readonly stableRequests: number | null;
      readonly stableErrorRate: number | null;
      readonly stableP95Ms: number | null;
      readonly canaryEvaluationScore: number | null;
      readonly stableEvaluationScore: number | null;
    }[];
    readonly receipts: readonly {
      readonly seq: number;
      readonly action: string;
      readonly decision: string;
      readonly result: string;
      readonly evidenceJson: string;
      readonly hash: string;
      readonly occurredAt: string;
      readonly actor: string;
    }[];
  };
};

export type ConsoleSignalRolloutMutationVariables = {
  readonly rollout: string;
  readonly action: Schema.RolloutAction;
  readonly reason?: string | null;
};

export const ConsoleSignalRolloutDocument: TypedDocument<
  ConsoleSignalRolloutMutation,
  ConsoleSignalRolloutMutationVariables
> = {
  operationName: 'ConsoleSignalRollout',
  document: `mutation ConsoleSignalRollout($rollout: ID!, $action: RolloutAction!, $reason: String) {
  signalRollout(rollout: $rollout, action: $action, reason: $reason) {
    id
    alias
    modelRef
    baseRevision
    state
    actions {
      action
      allowed
      reason
    }
    stateReason
    refusalCode
    steps
    currentStep
    currentWeight
    analysisWindowSeconds
    samplesPerStep
    maxWindowsPerStep
    bakeSeconds
    replicas
    maxErrorRateIncrease
    maxP95LatencyRatio
    p95SlackMs
    maxEvaluationScoreDrop
    canaryDeploymentId
    workflowId
    temporalUiUrl
    createdBy
    createdAt
    updatedAt
    finishedAt
    analyses {
      step
      weight
      window
      verdict
      reasons
      canaryRequests
      canaryErrors
      canaryErrorRate
      canaryP95Ms
      stableRequests
      stableErrorRate
      stableP95Ms
      canaryEvaluationScore
      stableEvaluationScore
    }
    receipts {
      seq
      action
      decision
      result
      evidenceJson
      hash
      occurredAt
      actor
    }
  }
}`,
};

/** From libs/sdk/graphql/console/search.graphql. */
export type ConsoleSearchQuery = {
  readonly search: readonly {
    readonly kind: string;
    readonly title: string;
    readonly detail: string | null;
    readonly route: string;
    readonly temporalUiUrl: string | null;
  }[];
};

export type ConsoleSearchQueryVariables = {
  readonly term: string;
};

export const ConsoleSearchDocument: TypedDocument<ConsoleSearchQuery, ConsoleSearchQueryVariables> = {
  operationName: 'ConsoleSearch',
  document: `query ConsoleSearch($term: String!) {
  search(term: $term) {
    kind
    title
    detail
    route
    temporalUiUrl
  }
}`,
};

/** From libs/sdk/graphql/console/session.graphql. */
export type ConsoleLoginMutation = {
  readonly login: {
    readonly accessToken: string;
    readonly expiresAt: Schema.DateTimeString;
    readonly operator: {
      readonly id: string;
      readonly username: string;
      readonly role: Schema.Role;
    };
  };
};

export type ConsoleLoginMutationVariables = {
  readonly input: Schema.LoginInput;
};

export const ConsoleLoginDocument: TypedDocument<ConsoleLoginMutation, ConsoleLoginMutationVariables> = {
  operationName: 'ConsoleLogin',
  document: `mutation ConsoleLogin($input: LoginInput!) {
  login(input: $input) {
    accessToken
    expiresAt
    operator {
      id
      username
      role
    }
  }
}`,
};

/** From libs/sdk/graphql/console/session.graphql. */
export type ConsoleLogoutMutation = {
  readonly logout: boolean;
};

export type ConsoleLogoutMutationVariables = Record<string, never>;

export const ConsoleLogoutDocument: TypedDocument<ConsoleLogoutMutation, ConsoleLogoutMutationVariables> = {
  operationName: 'ConsoleLogout',
  document: `mutation ConsoleLogout {
  logout
}`,
};

/** From libs/sdk/graphql/console/session.graphql. */
export type ConsoleChangePasswordMutation = {
  readonly changePassword: {
    readonly accessToken: string;
    readonly expiresAt: Schema.DateTimeString;
    readonly operator: {
      readonly id: string;
      readonly username: string;
      readonly role: Schema.Role;
    };
  };
};

export type ConsoleChangePasswordMutationVariables = {
  readonly input: Schema.ChangePasswordInput;
};

export const ConsoleChangePasswordDocument: TypedDocument<
  ConsoleChangePasswordMutation,
  ConsoleChangePasswordMutationVariables
> = {
  operationName: 'ConsoleChangePassword',
  document: `mutation ConsoleChangePassword($input: ChangePasswordInput!) {
  changePassword(input: $input) {
    accessToken
    expiresAt
    operator {
      id
      username
      role
    }
  }
}`,
};

/** From libs/sdk/graphql/console/tenants.graphql. */
export type ConsoleTenantsQuery = {
  readonly tenants: readonly ConsoleTenantFragment[];
};

export type ConsoleTenantsQueryVariables = Record<string, never>;

export const ConsoleTenantsDocument: TypedDocument<ConsoleTenantsQuery, ConsoleTenantsQueryVariables> = {
  operationName: 'ConsoleTenants',
  document: `query ConsoleTenants {
  tenants {
    ...ConsoleTenant
  }
}

fragment ConsoleTenant on Tenant {
  id
  displayName
  quota {
    requestsPerMinute
    tokensPerMinute
    maxConcurrentRequests
  }
  keyCount
  activeKeyCount
  createdBy
  createdAt
  updatedBy
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/tenants.graphql. */
export type ConsoleTenantQuery = {
  readonly tenant: ConsoleTenantFragment | null;
};

export type ConsoleTenantQueryVariables = {
  readonly id: string;
};

export const ConsoleTenantDocument: TypedDocument<ConsoleTenantQuery, ConsoleTenantQueryVariables> = {
  operationName: 'ConsoleTenant',
  document: `query ConsoleTenant($id: String!) {
  tenant(id: $id) {
    ...ConsoleTenant
  }
}

fragment ConsoleTenant on Tenant {
  id
  displayName
  quota {
    requestsPerMinute
    tokensPerMinute
    maxConcurrentRequests
  }
  keyCount
  activeKeyCount
  createdBy
  createdAt
  updatedBy
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/tenants.graphql. */
export type ConsoleGatewayKeysQuery = {
  readonly gatewayKeys: readonly ConsoleGatewayKeyFragment[];
};

export type ConsoleGatewayKeysQueryVariables = {
  readonly tenantId: string;
};

export const ConsoleGatewayKeysDocument: TypedDocument<
  ConsoleGatewayKeysQuery,
  ConsoleGatewayKeysQueryVariables
> = {
  operationName: 'ConsoleGatewayKeys',
  document: `query ConsoleGatewayKeys($tenantId: String!) {
  gatewayKeys(tenantId: $tenantId, includeRevoked: true) {
    ...ConsoleGatewayKey
  }
}

fragment ConsoleGatewayKey on GatewayKey {
  id
  tenantId
  name
  prefix
  aliases
  state
  createdBy
  createdAt
  expiresAt
  revokedAt
  revokedBy
  lastUsedAt
}`,
};

/** From libs/sdk/graphql/console/tenants.graphql. */
export type ConsoleAliasNamesQuery = {
  readonly aliases: readonly {
    readonly name: string;
  }[];
};

export type ConsoleAliasNamesQueryVariables = Record<string, never>;

export const ConsoleAliasNamesDocument: TypedDocument<
  ConsoleAliasNamesQuery,
  ConsoleAliasNamesQueryVariables
> = {
  operationName: 'ConsoleAliasNames',
  document: `query ConsoleAliasNames {
  aliases {
    name
  }
}`,
};

/** From libs/sdk/graphql/console/tenants.graphql. */
export type ConsoleCreateTenantMutation = {
  readonly createTenant: ConsoleTenantFragment;
};

export type ConsoleCreateTenantMutationVariables = {
  readonly input: Schema.CreateTenantInput;
};

export const ConsoleCreateTenantDocument: TypedDocument<
  ConsoleCreateTenantMutation,
  ConsoleCreateTenantMutationVariables
> = {
  operationName: 'ConsoleCreateTenant',
  document: `mutation ConsoleCreateTenant($input: CreateTenantInput!) {
  createTenant(input: $input) {
    ...ConsoleTenant
  }
}

fragment ConsoleTenant on Tenant {
  id
  displayName
  quota {
    requestsPerMinute
    tokensPerMinute
    maxConcurrentRequests
  }
  keyCount
  activeKeyCount
  createdBy
  createdAt
  updatedBy
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/tenants.graphql. */
export type ConsoleUpdateTenantMutation = {
  readonly updateTenant: ConsoleTenantFragment;
};

export type ConsoleUpdateTenantMutationVariables = {
  readonly input: Schema.UpdateTenantInput;
};

export const ConsoleUpdateTenantDocument: TypedDocument<
  ConsoleUpdateTenantMutation,
  ConsoleUpdateTenantMutationVariables
> = {
  operationName: 'ConsoleUpdateTenant',
  document: `mutation ConsoleUpdateTenant($input: UpdateTenantInput!) {
  updateTenant(input: $input) {
    ...ConsoleTenant
  }
}

fragment ConsoleTenant on Tenant {
  id
  displayName
  quota {
    requestsPerMinute
    tokensPerMinute
    maxConcurrentRequests
  }
  keyCount
  activeKeyCount
  createdBy
  createdAt
  updatedBy
  updatedAt
}`,
};

/** From libs/sdk/graphql/console/tenants.graphql. */
export type ConsoleCreateGatewayKeyMutation = {
  readonly createGatewayKey: {
    readonly secret: string;
    readonly key: ConsoleGatewayKeyFragment;
  };
};

export type ConsoleCreateGatewayKeyMutationVariables = {
  readonly input: Schema.CreateGatewayKeyInput;
};

export const ConsoleCreateGatewayKeyDocument: TypedDocument<
  ConsoleCreateGatewayKeyMutation,
  ConsoleCreateGatewayKeyMutationVariables
> = {
  operationName: 'ConsoleCreateGatewayKey',
  document: `mutation ConsoleCreateGatewayKey($input: CreateGatewayKeyInput!) {
  createGatewayKey(input: $input) {
    secret
    key {
      ...ConsoleGatewayKey
    }
  }
}

fragment ConsoleGatewayKey on GatewayKey {
  id
  tenantId
  name
  prefix
  aliases
  state
  createdBy
  createdAt
  expiresAt
  revokedAt
  revokedBy
  lastUsedAt
}`,
};

/** From libs/sdk/graphql/console/tenants.graphql. */
export type ConsoleRevokeGatewayKeyMutation = {
  readonly revokeGatewayKey: ConsoleGatewayKeyFragment;
};

export type ConsoleRevokeGatewayKeyMutationVariables = {
  readonly id: string;
};

export const ConsoleRevokeGatewayKeyDocument: TypedDocument<
  ConsoleRevokeGatewayKeyMutation,
  ConsoleRevokeGatewayKeyMutationVariables
> = {
  operationName: 'ConsoleRevokeGatewayKey',
  document: `mutation ConsoleRevokeGatewayKey($id: ID!) {
  revokeGatewayKey(id: $id) {
    ...ConsoleGatewayKey
  }
}

fragment ConsoleGatewayKey on GatewayKey {
  id
  tenantId
  name
  prefix
  aliases
  state
  createdBy
  createdAt
  expiresAt
  revokedAt
  revokedBy
  lastUsedAt
}`,
};

/** From libs/sdk/graphql/console/tenants.graphql. */
export type ConsoleTenantUsageQuery = {
  readonly traffic: {
    readonly windowStart: Schema.DateTimeString;
    readonly windowEnd: Schema.DateTimeString;
    readonly bucketSeconds: number;
    readonly buckets: readonly {
      readonly start: Schema.DateTimeString;
      readonly requests: number;
      readonly errors: number;
      readonly rateLimited: number;
      readonly promptTokens: number;
      readonly completionTokens: number;
    }[];
    readonly totals: {
      readonly requests: number;
      readonly errors: number;
      readonly rateLimited: number;
      readonly promptTokens: number;
      readonly completionTokens: number;
    };
    readonly tenants: readonly {
      readonly tenantId: string | null;
      readonly topModels: readonly {
        readonly requestedModel: string;
        readonly requests: number;
        readonly errors: number;
      }[];
    }[];
  };
};

export type ConsoleTenantUsageQueryVariables = {
  readonly tenant: string;
  readonly windowMinutes: number;
  readonly bucketSeconds: number;
};

export const ConsoleTenantUsageDocument: TypedDocument<
  ConsoleTenantUsageQuery,
  ConsoleTenantUsageQueryVariables
> = {
  operationName: 'ConsoleTenantUsage',
  document: `query ConsoleTenantUsage($tenant: String!, $windowMinutes: Int!, $bucketSeconds: Int!) {
  traffic(
    windowMinutes: $windowMinutes
    bucketSeconds: $bucketSeconds
    tenant: $tenant
  ) {
    windowStart
    windowEnd
    bucketSeconds
    buckets {
      start
      requests
      errors
      rateLimited
      promptTokens
      completionTokens
    }
    totals {
      requests
      errors
      rateLimited
      promptTokens
      completionTokens
    }
    tenants {
      tenantId
      topModels {
        requestedModel
        requests
        errors
      }
    }
  }
}`,
};

/** From libs/sdk/graphql/console/tenants.graphql. */
export type ConsolePayloadCapturesQuery = {
  readonly payloadCaptures: readonly {
    readonly id: string;
    readonly requestId: string;
    readonly correlationId: string;
    readonly modelRef: string | null;
    readonly purpose: string;
    readonly requestBytes: number;
    readonly responseBytes: number;
    readonly capturedAt: string;
    readonly expiresAt: string;
  }[];
};

export type ConsolePayloadCapturesQueryVariables = {
  readonly tenantId: string;
  readonly limit?: number | null;
};

export const ConsolePayloadCapturesDocument: TypedDocument<
  ConsolePayloadCapturesQuery,
  ConsolePayloadCapturesQueryVariables
> = {
  operationName: 'ConsolePayloadCaptures',
  document: `query ConsolePayloadCaptures($tenantId: String!, $limit: Int) {
  payloadCaptures(tenantId: $tenantId, limit: $limit) {
    id
    requestId
    correlationId
    modelRef
    purpose
    requestBytes
    responseBytes
    capturedAt
    expiresAt
  }
}`,
};

/** From libs/sdk/graphql/console/tenants.graphql. */
export type ConsolePurgePayloadCapturesMutation = {
  readonly purgePayloadCaptures: {
    readonly tenantId: string;
    readonly deleted: number;
    readonly receiptHashes: readonly string[];
    readonly workflowId: string;
    readonly temporalUiUrl: string;
  };
};

export type ConsolePurgePayloadCapturesMutationVariables = {
  readonly tenantId: string;
  readonly idempotencyKey?: string | null;
};

export const ConsolePurgePayloadCapturesDocument: TypedDocument<
  ConsolePurgePayloadCapturesMutation,
  ConsolePurgePayloadCapturesMutationVariables
> = {
  operationName: 'ConsolePurgePayloadCaptures',
  document: `mutation ConsolePurgePayloadCaptures($tenantId: String!, $idempotencyKey: String) {
  purgePayloadCaptures(tenantId: $tenantId, idempotencyKey: $idempotencyKey) {
    tenantId
    deleted
    receiptHashes
    workflowId
    temporalUiUrl
  }
}`,
};

/** From libs/sdk/graphql/sdk/operator.graphql. */
export type SdkModelsQuery = {
  readonly models: readonly {
    readonly name: string;
    readonly displayName: string;
    readonly description: string | null;
    readonly versions: readonly {
      readonly ref: string;
      readonly state: string;
      readonly runtimeKind: string;
      readonly contextLength: number | null;
    }[];
  }[];
};

export type SdkModelsQueryVariables = Record<string, never>;

export const SdkModelsDocument: TypedDocument<SdkModelsQuery, SdkModelsQueryVariables> = {
  operationName: 'SdkModels',
  document: `query SdkModels {
  models {
    name
    displayName
    description
    versions {
      ref
      state
      runtimeKind
      contextLength
    }
  }
}`,
};

/** From libs/sdk/graphql/sdk/operator.graphql. */
export type SdkAliasesQuery = {
  readonly aliases: readonly {
    readonly name: string;
    readonly dataClass: string;
    readonly description: string | null;
    readonly currentRevision: number;
    readonly current: {
      readonly revision: number;
      readonly modelRef: string;
      readonly deploymentName: string | null;
    } | null;
  }[];
};

export type SdkAliasesQueryVariables = Record<string, never>;

export const SdkAliasesDocument: TypedDocument<SdkAliasesQuery, SdkAliasesQueryVariables> = {
  operationName: 'SdkAliases',
  document: `query SdkAliases {
  aliases {
    name
    dataClass
    description
    currentRevision
    current {
      revision
      modelRef
      deploymentName
    }
  }
}`,
};

/** From libs/sdk/graphql/sdk/operator.graphql. */
export type SdkDeploymentsQuery = {
  readonly deployments: readonly {
    readonly name: string;
    readonly modelRef: string;
    readonly state: string;
    readonly desiredReplicas: number;
    readonly readyReplicas: number;
    readonly purpose: string;
  }[];
};

export type SdkDeploymentsQueryVariables = Record<string, never>;

export const SdkDeploymentsDocument: TypedDocument<SdkDeploymentsQuery, SdkDeploymentsQueryVariables> = {
  operationName: 'SdkDeployments',
  document: `query SdkDeployments {
  deployments {
    name
    modelRef
    state
    desiredReplicas
    readyReplicas
    purpose
  }
}`,
};
