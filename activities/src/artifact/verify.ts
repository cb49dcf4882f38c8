import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import {
  verifyArtifactDigest,
  verifySyntheticArtifact,
  type ArtifactCheckCode,
  type ArtifactCheckResult,
  type ArtifactSource,
  type ArtifactStoreConfig,
} from '@lunanexa/artifact-store';
import { ErrorCode, type ModelVersionState } from '@lunanexa/contracts';
import { canTransition, modelVersionLifecycle, transition } from '@lunanexa/domain';
import {
  findModelVersion,
  loadArtifactSignatureDecision,
  lockModelVersionState,
  recordModelVersionVerification,
  type ArtifactVerification,
  type ModelVersionRow,
} from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import type { Clock } from '../clock';
import { currentWorkflowId, receiptedTransaction, receiptOnce } from '../fleet-support';

export {
  artifactStoreConfigFromEnv,
  ArtifactStoreConfigError,
  ARTIFACT_STORE_ENV_VARIABLES,
  EMPTY_ARTIFACT_STORE_CONFIG,
  type ArtifactStoreConfig,
} from '@lunanexa/artifact-store';

export interface ArtifactActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
  /** The stores this worker reads artifacts from (LUNANEXA_S3_*, LUNANEXA_OCI_*, LUNANEXA_ARTIFACT_*). */
  readonly artifactStore: ArtifactStoreConfig;
  /** Whole-download deadline for one verification; idle gaps are bounded by the store config. */
  readonly verifyTimeoutMs?: number;
}

export interface VerifyModelVersionArtifactInput {
  /** The version's id or its `model@version` ref. */
  readonly modelVersionId: string;
  readonly actor: string;
  readonly correlationId: string;
}

export interface VerifyModelVersionArtifactResult {
  readonly ok: boolean;
  /**
   * Null when ok; otherwise DIGEST_MISMATCH, NOT_FOUND, DEPENDENCY_UNAVAILABLE, VALIDATION_FAILED or
   * SIGNATURE_INVALID (the bytes match but the provenance signature does not verify against a trusted key).
   */
  readonly code: VerificationCode | null;
  readonly message: string | null;
  /** What the bytes hashed to (null when they could not all be read). */
  readonly digest: string | null;
  readonly sizeBytes: number | null;
  /** `s3`, `oci`, `file`, `synthetic` or `unsupported`. */
  readonly store: ArtifactSource;
  /** The version's state after the check. */
  readonly state: ModelVersionState;
}

type VerificationCode = Exclude<ArtifactCheckCode, 'CANCELLED' | 'INTERNAL'> | 'SIGNATURE_INVALID';

const DEFAULT_VERIFY_TIMEOUT_MS = 6 * 60 * 60_000;
const HEARTBEAT_EVERY_MS = 10_000;

interface StoredArtifact {
  readonly uri: string;
  readonly digest: string;
  readonly sizeBytes: number;
  readonly format: string;
}

/** The stored artifact document, if it has the fields a check needs. */
function storedArtifact(value: unknown): StoredArtifact | null {
  if (typeof value !== 'object' || value === null) return null;
  const { uri, digest, sizeBytes, format } = value as Record<string, unknown>;
  if (typeof uri !== 'string' || typeof digest !== 'string' || typeof format !== 'string') return null;
  if (typeof sizeBytes !== 'number') return null;
  return { uri, digest, sizeBytes, format };
}

export function createArtifactActivities({
  db,
  clock,
  artifactStore,
  verifyTimeoutMs = DEFAULT_VERIFY_TIMEOUT_MS,
}: ArtifactActivityPorts) {
  async function check(version: ModelVersionRow, signal: AbortSignal): Promise<ArtifactCheckResult> {
    const artifact = storedArtifact(version.artifact);
    if (artifact === null) {
      return {
        ok: false,
        code: 'VALIDATION_FAILED',
        digest: null,
        sizeBytes: null,
        store: 'unsupported',
        message: `${version.ref} has no artifact document with uri, digest, sizeBytes and format`,
      };
    }
    // Synthetic weights: the digest is derived from the ref, and there are no bytes to read.
    if (artifact.format === 'fake')
      return verifySyntheticArtifact(artifact, `${version.model}@${version.version}`);
    const context = Context.current();
    const beat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      return await verifyArtifactDigest(artifact, artifactStore, { signal, timeoutMs: verifyTimeoutMs });
    } finally {
      clearInterval(beat);
    }
  }

  return {
    /**
     * Hashes the version's artifact as its store serves it and records the
     * verdict in `model_versions.verification`. A version still Registered
     * moves to Verified or VerificationFailed (state_reason = code and
     * message); in any other state only the verification is recorded. Safe
     * to retry: a repeat re-reads the bytes, finds the state already moved
     * and the receipt already written. Store trouble is a verdict
     * (DEPENDENCY_UNAVAILABLE), not an activity failure: the workflow
     * decides whether to retry; only cancellation and a missing version
     * throw.
     */
    async verifyModelVersionArtifact(
      input: VerifyModelVersionArtifactInput,
    ): Promise<VerifyModelVersionArtifactResult> {
      const context = Context.current();
      const workflowId = currentWorkflowId();
      const version = await findModelVersion(db, input.modelVersionId);
      if (version === null) {
        throw ApplicationFailure.create({
          type: ErrorCode.NOT_FOUND,
          message: `model version ${input.modelVersionId} does not exist`,
          nonRetryable: true,
        });
      }
      const checked = await check(version, context.cancellationSignal);
      if (!checked.ok && checked.code === 'CANCELLED') {
        throw new CancelledFailure(`verification of ${version.ref} was cancelled`);
      }
      const now = clock.now();
      // Bytes that match their digest must also be vouched for: a provenance signature is verified
      // against the trusted keys (libs/credentials decideArtifactSignature); an unsigned version passes
      // here — whether it may serve is each alias's tenants' policy, checked at rollout.
      const signature = checked.ok
        ? await loadArtifactSignatureDecision(db, version, { aliasName: null, now })
        : null;
      const result: {
        ok: boolean;
        code: VerificationCode | 'CANCELLED' | 'INTERNAL' | null;
        message: string | null;
        digest: string | null;
        sizeBytes: number | null;
        store: ArtifactSource;
      } =
        signature !== null && !signature.ok
          ? { ...checked, ok: false, code: 'SIGNATURE_INVALID', message: signature.reason }
          : {
              ...checked,
              code: checked.ok ? null : checked.code,
              message: checked.ok ? null : checked.message,
            };
      const verification: ArtifactVerification = {
        ok: result.ok,
        digest: result.digest,
        sizeBytes: result.sizeBytes,
        store: result.store,
        verifiedAt: now.toISOString(),
        ...(result.ok ? {} : { code: result.code ?? 'INTERNAL', message: result.message ?? '' }),
      };
      return receiptedTransaction(db, async (manager) => {
        const from = (await lockModelVersionState(manager, version.id)) ?? version.state;
        const event = result.ok ? 'verificationPassed' : 'verificationFailed';
        const moves = from === 'Registered' && canTransition(modelVersionLifecycle, from, event);
        const to = moves ? transition(modelVersionLifecycle, from, event) : from;
        const reason = result.ok ? null : `${result.code}: ${result.message}`.slice(0, 2000);
        await recordModelVersionVerification(
          manager,
          version.id,
          verification,
          now,
          moves ? { state: to, reason } : null,
        );
        await receiptOnce(manager, workflowId, {
          actor: input.actor,
          action: 'model-version.verify',
          // One receipt per scheduled activity: its retries share the id, a later verification gets a new one.
          step: `verify:${version.id}:${context.info.activityId}`,
          evidence: {
            modelVersionId: version.id,
            ref: version.ref,
            ok: result.ok,
            code: result.ok ? null : result.code,
            digest: result.digest,
            store: result.store,
            signedBy: signature?.ok ? signature.keyId : null,
            from,
            to,
          },
          correlationId: input.correlationId,
          result: result.ok ? 'succeeded' : 'failed',
          occurredAt: now,
        });
        return {
          ok: result.ok,
          code: result.ok ? null : (result.code as VerificationCode),
          message: result.ok ? null : result.message,
          digest: result.digest,
          sizeBytes: result.sizeBytes,
          store: result.store,
          state: to,
        };
      });
    },
  };
}
