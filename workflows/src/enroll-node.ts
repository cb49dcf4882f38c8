import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type {
  ApproveNodeSignal,
  EnrollmentPhase,
  EnrollNodeWorkflowInput,
  EnrollNodeWorkflowResult,
  RejectNodeSignal,
} from '@lunanexa/contracts';
import {
  ENROLL_NODE_QUERIES,
  ENROLL_NODE_SIGNALS,
  ENROLL_NODE_UPDATES,
} from '@lunanexa/contracts/dist/src/workflow-constants';
import type { Activities } from '@lunanexa/activities';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/** The SSH reachability check retries for longer: an agent may still be starting its SSH server. */
const reach = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 30 },
});

export const approveNodeSignal = defineSignal<[ApproveNodeSignal]>(ENROLL_NODE_SIGNALS.approve);
export const rejectNodeSignal = defineSignal<[RejectNodeSignal]>(ENROLL_NODE_SIGNALS.reject);
export const enrollmentPhaseQuery = defineQuery<EnrollmentPhase>(ENROLL_NODE_QUERIES.phase);
/** Approve or reject and answer with the enrollment's outcome once it is recorded. */
export const approveNodeUpdate = defineUpdate<EnrollNodeWorkflowResult, [ApproveNodeSignal]>(
  ENROLL_NODE_UPDATES.approve,
);
export const rejectNodeUpdate = defineUpdate<EnrollNodeWorkflowResult, [RejectNodeSignal]>(
  ENROLL_NODE_UPDATES.reject,
);

/**
 * EnrollNode: Pending → (approve signal, or the token's auto-approve policy)
 * → Approved → credential issued → SSH reachability with the pinned host key
 * → Active. The API has already consumed the bootstrap token and written the
 * Pending node (one transaction); everything after lives here, so a
 * controller restart resumes where it stopped.
 */
export async function enrollNodeWorkflow(input: EnrollNodeWorkflowInput): Promise<EnrollNodeWorkflowResult> {
  let phase: EnrollmentPhase = 'AwaitingApproval';
  let approval: ApproveNodeSignal | null = null;
  let rejection: RejectNodeSignal | null = null;
  setHandler(enrollmentPhaseQuery, () => phase);
  setHandler(approveNodeSignal, (signal) => {
    approval ??= signal;
  });
  setHandler(rejectNodeSignal, (signal) => {
    rejection ??= signal;
  });
  let outcome: EnrollNodeWorkflowResult | null = null;
  /** An approval after a rejection (or the reverse) does not apply; approving an approved node answers as before. */
  const stillApplies = (wanted: 'approve' | 'reject', decision: { readonly actor: string }) => {
    if (typeof decision.actor !== 'string' || decision.actor === '')
      throw new Error(`${wanted} needs an actor`);
    const contradicted =
      wanted === 'approve'
        ? rejection !== null || outcome?.phase === 'Rejected'
        : input.autoApprove || approval !== null || (outcome !== null && outcome.phase !== 'Rejected');
    if (contradicted) {
      throw ApplicationFailure.create({
        type: 'INVALID_TRANSITION',
        message: `node ${input.nodeId} is no longer awaiting approval; ${wanted} does not apply`,
        nonRetryable: true,
      });
    }
  };
  setHandler(
    approveNodeUpdate,
    async (signal) => {
      approval ??= signal;
      await condition(() => outcome !== null);
      return outcome as unknown as EnrollNodeWorkflowResult;
    },
    { validator: (signal: ApproveNodeSignal) => stillApplies('approve', signal) },
  );
  setHandler(
    rejectNodeUpdate,
    async (signal) => {
      rejection ??= signal;
      await condition(() => outcome !== null);
      return outcome as unknown as EnrollNodeWorkflowResult;
    },
    { validator: (signal: RejectNodeSignal) => stillApplies('reject', signal) },
  );
  /** The approve or reject asked by update answers with this before the run closes. */
  const finish = async (result: EnrollNodeWorkflowResult): Promise<EnrollNodeWorkflowResult> => {
    outcome = result;
    await condition(allHandlersFinished);
    return result;
  };

  const base = { nodeId: input.nodeId, correlationId: input.correlationId };
  if (!input.autoApprove) {
    const decided = await condition(
      () => approval !== null || rejection !== null,
      input.approvalTimeoutSeconds * 1000,
    );
    if (!decided || (rejection !== null && approval === null)) {
      const reason = decided && rejection ? (rejection as RejectNodeSignal).reason : 'approval timed out';
      const actor = decided && rejection ? (rejection as RejectNodeSignal).actor : 'system:enrollment';
      const correlationId =
        decided && rejection ? (rejection as RejectNodeSignal).correlationId : input.correlationId;
      const receipt = await steps.rejectNode({ nodeId: input.nodeId, actor, correlationId, reason });
      phase = 'Rejected';
      return finish({
        nodeId: input.nodeId,
        phase,
        approvedBy: null,
        credentialSerial: null,
        receiptHash: receipt.hash,
      });
    }
  }
  const approver = input.autoApprove
    ? 'policy:auto-approve'
    : ((approval as ApproveNodeSignal | null)?.actor ?? input.actor);
  const approvalCorrelation = (approval as ApproveNodeSignal | null)?.correlationId ?? input.correlationId;
  await steps.approveNode({
    nodeId: input.nodeId,
    actor: approver,
    correlationId: approvalCorrelation,
    auto: input.autoApprove,
  });
  phase = 'IssuingCredential';
  const credential = await steps.issueNodeCredential({ ...base, actor: approver });
  phase = 'CheckingReachability';
  await reach.checkNodeReachable({ ...base, actor: approver });
  const receipt = await steps.activateNode({ ...base, actor: approver, step: 'enroll' });
  phase = 'Active';
  return finish({
    nodeId: input.nodeId,
    phase: 'Active',
    approvedBy: approver,
    credentialSerial: credential.serial,
    receiptHash: receipt.hash,
  });
}
