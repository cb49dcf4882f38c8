import { Inject, Injectable } from '@nestjs/common';
import {
  auditSegmentRanges,
  buildEvidenceBundle,
  verifyChain,
  type AuditSegmentRun,
  type ChainedAuditEvent,
  type EvidenceManifest,
  type EvidenceSection,
} from '@lunanexa/audit';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import {
  auditChainHead,
  auditEventsBetween,
  auditSeqsOfRelease,
  findAlias,
  findAliasRevision,
  findDeployment,
  findLicense,
  findModelVersion,
  findNode,
  findRollout,
  findRuntime,
  findTrustedSigningKey,
  listAliasRevisions,
  listAssignments,
  listEvaluationRuns,
  loadArtifactSignatureDecision,
  signedArtifactOf,
  verifyAuditChain,
  type AliasRevisionRow,
  type AssignmentRow,
  type DeploymentRow,
  type NodeRow,
  type RolloutRow,
} from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { CONTROLLER_KEY, type ControllerKeyRing } from '../auth';
import { BenchmarkRunService } from '../benchmarks';

/** At most this many audit events about one release go into its bundle (the newest). */
export const MAX_RELEASE_AUDIT_EVENTS = 2_000;
/** Events about the release closer than this share one contiguous run of the chain. */
export const AUDIT_RUN_GAP = 50;
/** Evaluation runs of the version carried in a bundle (the newest). */
const MAX_EVALUATION_RUNS = 500;

export interface EvidenceExport {
  readonly bytes: Buffer;
  readonly manifest: EvidenceManifest;
  readonly fileName: string;
}

const invalidRevision = (message: string): LunaNexaError =>
  new LunaNexaError(ErrorCode.VALIDATION_FAILED, `revision ${message}`, [{ path: 'revision', message }]);

/** What a bundle says of a node: its identity and inventory, never its credential. */
function nodeEvidence(node: NodeRow) {
  return {
    id: node.id,
    name: node.name,
    lifecycle: node.lifecycle,
    cordoned: node.cordoned,
    labels: node.labels,
    taints: node.taints,
    address: node.address,
    keyId: node.keyId,
    hostKeyFingerprint: node.hostKeyFingerprint,
    inventory: node.inventory,
    conditions: node.conditions,
    enrolledAt: node.enrolledAt,
    leaseExpiresAt: node.leaseExpiresAt,
  };
}

function assignmentEvidence(row: AssignmentRow) {
  return {
    id: row.id,
    deploymentId: row.deploymentId,
    nodeId: row.nodeId,
    generation: row.generation,
    intent: row.intent,
    observedState: row.observedState,
    observedGeneration: row.observedGeneration,
    observedAt: row.observedAt,
    createdAt: row.createdAt,
  };
}

/**
 * Assembles the evidence bundle of one alias revision (docs/ARCHITECTURE.md
 * "Evidence bundles"): reads what the registry, the rollouts, the
 * deployments, the nodes and the audit chain hold about it, and signs the
 * manifest with the controller key. Changes nothing.
 */
@Injectable()
export class EvidenceService {
  constructor(
    private readonly db: DataSource,
    @Inject(CONTROLLER_KEY) private readonly ring: ControllerKeyRing,
    private readonly benchmarks: BenchmarkRunService,
  ) {}

  /** `revision` as the query string gave it; absent means the alias's current revision. */
  async export(aliasName: string, revision: string | undefined, actor: string): Promise<EvidenceExport> {
    let wanted: number | null = null;
    if (revision !== undefined) {
      if (!/^[1-9][0-9]{0,8}$/.test(revision)) throw invalidRevision('must be a whole number from 1');
      wanted = Number(revision);
    }
    const alias = await findAlias(this.db, aliasName);
    if (!alias) {
      throw new LunaNexaError(ErrorCode.NOT_FOUND, `alias ${aliasName} does not exist`, [
        { path: 'alias', message: 'no such alias' },
      ]);
    }
    const number = wanted ?? alias.currentRevision;
    if (number === 0) throw invalidRevision(`none: alias ${alias.name} has not promoted a version yet`);
    const current = await findAliasRevision(this.db, alias.id, number);
    if (!current) {
      throw invalidRevision(
        `${number} does not exist: alias ${alias.name} is at revision ${alias.currentRevision}`,
      );
    }
    const revisions = (await listAliasRevisions(this.db, alias.id)).filter((row) => row.revision <= number);
    const version = await findModelVersion(this.db, current.modelVersionId);
    if (!version) throw new LunaNexaError(ErrorCode.INTERNAL, `model version ${current.modelRef} is missing`);
    const [license, runtime] = await Promise.all([
      findLicense(this.db, version.licenseId),
      findRuntime(this.db, version.runtimeId),
    ]);

    const signed = signedArtifactOf(version.artifact);
    const signingKey = signed.signature ? await findTrustedSigningKey(this.db, signed.signature.keyId) : null;
    const now = new Date();
    const signatureDecision = await loadArtifactSignatureDecision(this.db, version, {
      aliasName: alias.name,
      now,
    });

    const evaluationRuns = await listEvaluationRuns(this.db, {
      modelVersionId: version.id,
      limit: MAX_EVALUATION_RUNS,
    });

    // The rollout that made this revision, and for a rollback the one that made the revision it restored.
    const restored: AliasRevisionRow | undefined =
      current.restoredFrom === null
        ? undefined
        : revisions.find((row) => row.revision === current.restoredFrom);
    const rolloutIds = [
      ...new Set([current.rolloutId, restored?.rolloutId ?? null].filter((id) => id !== null)),
    ];
    const rollouts = (await Promise.all(rolloutIds.map((id) => findRollout(this.db, id)))).filter(
      (row): row is RolloutRow => row !== null,
    );
    const deploymentIds = [
      ...new Set(
        [current.deploymentId, ...rollouts.map((row) => row.canaryDeploymentId)].filter((id) => id !== null),
      ),
    ];
    const deployments = (await Promise.all(deploymentIds.map((id) => findDeployment(this.db, id)))).filter(
      (row): row is DeploymentRow => row !== null,
    );
    const assignments = (
      await Promise.all(deployments.map((row) => listAssignments(this.db, { deploymentId: row.id })))
    ).flat();
    // The release's replicas are the revision's deployment's; a canary rolled away from is in the rollout section only.
    const nodeIds = [
      ...new Set(
        assignments.filter((row) => row.deploymentId === current.deploymentId).map((row) => row.nodeId),
      ),
    ].sort();
    const nodes = (await Promise.all(nodeIds.map((id) => findNode(this.db, id)))).filter(
      (row): row is NodeRow => row !== null,
    );

    const audit = await this.auditSegment({
      workflowIds: [
        ...rollouts.map((row) => row.workflowId),
        ...deployments.map((row) => row.workflowId),
        ...evaluationRuns.map((row) => row.workflowId),
      ],
      values: [
        alias.id,
        alias.name,
        version.id,
        version.ref,
        ...(license ? [license.id, license.name] : []),
        ...deploymentIds,
        ...rolloutIds,
        ...evaluationRuns.map((row) => row.id),
      ],
    });
    const releaseEvents = audit.events;
    const licenseNames = license ? [license.id, license.name] : [];
    const licenseReview = releaseEvents.filter(
      (event) =>
        event.action.startsWith('license.') &&
        [event.evidence['licenseId'], event.evidence['license']].some(
          (value) => typeof value === 'string' && licenseNames.includes(value),
        ),
    );

    const sections: EvidenceSection[] = [
      { name: 'model-version.json', content: { modelVersion: version, runtime } },
      {
        name: 'license.json',
        content: {
          license,
          approvalState: license?.approvalState ?? null,
          reviewHistory: licenseReview,
        },
      },
      {
        name: 'artifact.json',
        content: {
          modelRef: version.ref,
          artifact: version.artifact,
          digest: signed.digest,
          sizeBytes: signed.sizeBytes,
          signature: signed.signature,
          signingKey: signingKey
            ? {
                keyId: signingKey.keyId,
                algorithm: signingKey.algorithm,
                publicKey: signingKey.publicKey,
                label: signingKey.label,
                revokedAt: signingKey.revokedAt,
              }
            : null,
          signatureDecisionAtExport: signatureDecision,
          lastDigestVerification: version.verification,
        },
      },
      {
        name: 'evaluations.json',
        content: {
          summary: version.evaluation,
          runs: evaluationRuns.map((run) => ({
            id: run.id,
            suite: {
              id: run.suiteId,
              name: run.suiteName,
              digest: run.suiteDigest,
              definition: run.suiteSnapshot,
            },
            deploymentId: run.deploymentId,
            state: run.state,
            passed: run.passed,
            scores: run.scores,
            reasons: run.reasons,
            errorCode: run.errorCode,
            workflowId: run.workflowId,
            createdBy: run.createdBy,
            createdAt: run.createdAt,
            finishedAt: run.finishedAt,
          })),
        },
      },
      {
        name: 'benchmarks.json',
        content: {
          runs: evaluationRuns
            .filter((run) => run.profileId !== null)
            .map((run) => ({
              id: run.id,
              profile: {
                id: run.profileId,
                name: run.profileName,
                digest: run.profileDigest,
                definition: run.profileSnapshot,
              },
              state: run.state,
              metrics: run.metrics,
              workflowId: run.workflowId,
              finishedAt: run.finishedAt,
            })),
        },
      },
      {
        name: 'placement-and-rollout.json',
        content: {
          rollouts: rollouts.map((row) => ({
            ...row,
            receipts: releaseEvents.filter((event) => event.workflowId === row.workflowId),
          })),
          deployments: deployments.map((row) => ({
            ...row,
            servesThisRevision: row.id === current.deploymentId,
            assignments: assignments.filter((a) => a.deploymentId === row.id).map(assignmentEvidence),
            receipts: releaseEvents.filter((event) => event.workflowId === row.workflowId),
          })),
        },
      },
      {
        name: 'alias-revisions.json',
        content: {
          alias: { id: alias.id, name: alias.name, dataClass: alias.dataClass, createdAt: alias.createdAt },
          currentRevisionAtExport: alias.currentRevision,
          revisions,
        },
      },
      { name: 'audit-segment.json', content: audit.segment },
      { name: 'nodes.json', content: { nodes: nodes.map(nodeEvidence) } },
      { name: 'recommendations.json', content: await this.recommendations(alias.name) },
    ];
    const { bytes, manifest } = buildEvidenceBundle({
      alias: { id: alias.id, name: alias.name },
      revision: number,
      modelRef: current.modelRef,
      createdAt: now,
      createdBy: actor,
      sections,
      signer: this.ring.current(),
    });
    return { bytes, manifest, fileName: `evidence-${alias.name}-r${number}.tar.gz` };
  }

  /**
   * The release's audit events in contiguous runs of the chain, each verified
   * here as the verifier will offline, with the whole chain's verification
   * and head at export time.
   */
  private async auditSegment(subjects: { workflowIds: string[]; values: string[] }) {
    const seqs = await auditSeqsOfRelease(this.db, subjects, MAX_RELEASE_AUDIT_EVENTS);
    const wanted = new Set(seqs);
    const runs: AuditSegmentRun[] = [];
    const events: ChainedAuditEvent[] = [];
    for (const range of auditSegmentRanges(seqs, AUDIT_RUN_GAP)) {
      const read = await auditEventsBetween(this.db, Math.max(1, range.from - 1), range.to);
      const anchorEvent = range.from > 1 ? read[0] : undefined;
      const runEvents = range.from > 1 ? read.slice(1) : read;
      runs.push({
        anchor: anchorEvent ? { seq: anchorEvent.seq, hash: anchorEvent.hash } : null,
        events: runEvents,
      });
      events.push(...runEvents.filter((event) => wanted.has(event.seq)));
    }
    const runResults = runs.map((run) => verifyChain(run.events, run.anchor));
    const chain = await verifyAuditChain(this.db.manager);
    const head = await auditChainHead(this.db);
    return {
      events,
      segment: {
        releaseEventSeqs: seqs,
        truncated: seqs.length >= MAX_RELEASE_AUDIT_EVENTS,
        runs,
        verification: {
          runsValid: runResults.every((result) => result.valid),
          eventsChecked: runResults.reduce((sum, result) => sum + result.checked, 0),
          brokenAt: runResults.find((result) => !result.valid)?.brokenAt ?? null,
        },
        chainAtExport: {
          valid: chain.valid,
          checked: chain.checked,
          brokenAt: chain.brokenAt ?? null,
          headSeq: head?.seq ?? 0,
          headHash: head?.hash ?? null,
        },
      },
    };
  }

  /**
   * The alias's capacity recommendation as of the export (libs/domain `capacityRecommendation` over its newest
   * saturation sweep and the last 24 h of traffic). Figures it could not compute stay null with the reasons in
   * `missing`; nothing is estimated here.
   */
  private async recommendations(aliasName: string): Promise<Record<string, unknown>> {
    const [recommendation] = await this.benchmarks.capacity(aliasName, null, null);
    if (recommendation === undefined) {
      return { available: false, reason: `no capacity recommendation could be computed for ${aliasName}` };
    }
    return { available: true, computedAt: new Date().toISOString(), capacity: { ...recommendation } };
  }
}
