import type { Artifact as ArtifactRecord, CompatibleHardware, EvaluationSummary } from '@lunanexa/contracts';
import { allowedEvents, modelVersionLifecycle } from '@lunanexa/domain';
import type { ModelVersionRow } from '@lunanexa/persistence';
import type { ModelVersion } from './model-version.types';

export function modelVersionView(row: ModelVersionRow): ModelVersion {
  const runtime = row.runtime as { kind?: string };
  const artifact = row.artifact as ArtifactRecord;
  const evaluation = row.evaluation as EvaluationSummary | null;
  return {
    id: row.id,
    ref: row.ref,
    model: row.model,
    version: row.version,
    runtimeKind: runtime.kind ?? 'unknown',
    artifactDigest: artifact.digest,
    state: row.state,
    stateReason: row.stateReason,
    allowedEvents: allowedEvents(modelVersionLifecycle, row.state),
    artifact: {
      ...artifact,
      provenance: { ...artifact.provenance, signature: artifact.provenance.signature ?? null },
    },
    requirements: row.requirements as CompatibleHardware,
    verification: row.verification
      ? {
          ...row.verification,
          code: row.verification.code ?? null,
          message: row.verification.message ?? null,
        }
      : null,
    evaluation: evaluation
      ? {
          ...evaluation,
          scores: Object.entries(evaluation.scores).map(([name, value]) => ({ name, value })),
        }
      : null,
    contextLength: row.contextLength,
    parameterCount: row.parameterCount,
    runtimeEnv: Object.entries(row.runtimeEnv).map(([name, value]) => ({ name, value })),
    licenseId: row.licenseId,
    runtimeId: row.runtimeId,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
