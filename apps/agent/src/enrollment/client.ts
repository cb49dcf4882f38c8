import { randomInt } from 'node:crypto';
import {
  AGENT_HTTP_PATHS,
  createEnvelope,
  ed25519KeyId,
  EnrollResponseEnvelopeSchema,
  openSshPublicKey,
  parseEd25519PublicKey,
  signEnvelope,
  sshFingerprint,
  verifyEnvelope,
  type EnvelopeOf,
} from '@lunanexa/agent-protocol';
import { ErrorCode, LunaNexaError, type NodeInventory, type NodeLabels } from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import {
  controllerEndpoint,
  isTransientStatus,
  postEnvelope,
  problemOf,
  type ControllerAnswer,
} from '../controller-http';
import type { NodeKey } from '../ssh/keys';
import { EnrollmentError } from './errors';
import { ENROLLMENT_FILE_FORMAT, type Enrollment } from './state';

export interface EnrollRetryPolicy {
  /** Give up (EnrollmentError `unreachable`) once this much time has passed without a usable answer. */
  readonly deadlineMs: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** One request may take this long. */
  readonly requestTimeoutMs: number;
}

/**
 * Five minutes covers a controller being restarted or upgraded while nodes
 * are installed; after that the agent exits 1 and its supervisor decides.
 */
export const DEFAULT_ENROLL_RETRY: EnrollRetryPolicy = {
  deadlineMs: 5 * 60_000,
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  requestTimeoutMs: 15_000,
};

export interface EnrollRequest {
  readonly controllerUrl: string;
  /** `SHA256:…` the operator copied from the console or CLI with the token. */
  readonly controllerKeyFingerprint: string;
  readonly bootstrapToken: string;
  readonly nodeName: string;
  readonly labels: NodeLabels;
  readonly inventory: NodeInventory;
  readonly address: string;
  readonly ssh: { readonly port: number; readonly hostKeyFingerprint: string };
  /** Signs the request: proof that the agent holds the key it asks the controller to trust. */
  readonly nodeKey: NodeKey;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly retry?: Partial<EnrollRetryPolicy>;
  /** Aborts the request and the waits between attempts (the agent got SIGTERM while enrolling). */
  readonly signal?: AbortSignal;
}

/**
 * Enrolls this node: POSTs a signed `enroll.request` to
 * `<controllerUrl>/agent/v1/enroll` and returns the verified answer as the
 * enrollment to persist. Network failures and 5xx/408/429 answers are retried
 * with exponential backoff (fresh envelope, fresh nonce each time) until the
 * policy's deadline. Throws EnrollmentError.
 */
export async function enroll(request: EnrollRequest): Promise<Enrollment> {
  const policy: EnrollRetryPolicy = { ...DEFAULT_ENROLL_RETRY, ...request.retry };
  const now = request.now ?? (() => new Date());
  const url = controllerEndpoint(request.controllerUrl, AGENT_HTTP_PATHS.enroll);
  const log = request.logger.child({ component: 'enrollment' });
  const startedAt = Date.now();
  let delayMs = policy.initialDelayMs;
  for (let attempt = 1; ; attempt += 1) {
    const envelope = enrollEnvelope(request, now());
    log.info(
      { event: 'enroll_request', attempt, url, nodeName: request.nodeName, nodeKeyId: request.nodeKey.keyId },
      'asking the controller to enroll this node',
    );
    const answer = await postEnvelope(url, envelope, {
      timeoutMs: policy.requestTimeoutMs,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    const transient = transientReason(answer);
    if (transient === null && answer.kind === 'answer') return acceptAnswer(answer, envelope, request, now());
    const elapsed = Date.now() - startedAt;
    if (elapsed + delayMs > policy.deadlineMs) {
      throw new EnrollmentError(
        'unreachable',
        answer.kind === 'answer' ? problemOf(answer.body).code : null,
        `no usable answer from ${url} within ${Math.round(policy.deadlineMs / 1000)} s (last: ${transient ?? 'none'})`,
        answer.kind === 'answer' ? answer.status : null,
      );
    }
    log.warn(
      { event: 'enroll_retry', attempt, reason: transient, retryInMs: delayMs },
      'enrollment did not get through; retrying',
    );
    await sleep(delayMs, request.signal);
    // Jitter keeps a rack of agents that lost the controller together from retrying in lockstep.
    delayMs = Math.min(policy.maxDelayMs, delayMs * 2) + randomInt(0, Math.max(1, Math.floor(delayMs / 4)));
  }
}

function enrollEnvelope(request: EnrollRequest, issuedAt: Date): EnvelopeOf<'enroll.request'> {
  return signEnvelope(
    request.nodeKey.privateKey,
    request.nodeKey.keyId,
    createEnvelope('enroll.request', {
      // The controller assigns the node id in its answer; until then the node is its name.
      nodeId: request.nodeName,
      issuedAt,
      body: {
        bootstrapToken: request.bootstrapToken,
        nodeName: request.nodeName,
        publicKey: openSshPublicKey(request.nodeKey.publicKey),
        labels: request.labels,
        inventory: request.inventory,
        address: request.address,
        ssh: { port: request.ssh.port, hostKeyFingerprint: request.ssh.hostKeyFingerprint },
      },
    }),
  );
}

/** Why an answer is worth retrying, or null when it is final (accepted or refused). */
function transientReason(answer: ControllerAnswer): string | null {
  if (answer.kind === 'unreachable') return answer.reason;
  if (isTransientStatus(answer.status)) {
    const { code } = problemOf(answer.body);
    return `HTTP ${answer.status}${code === null ? '' : ` ${code}`}`;
  }
  return null;
}

function acceptAnswer(
  answer: Extract<ControllerAnswer, { kind: 'answer' }>,
  request: EnvelopeOf<'enroll.request'>,
  options: EnrollRequest,
  now: Date,
): Enrollment {
  if (answer.status < 200 || answer.status >= 300) {
    const problem = problemOf(answer.body);
    throw new EnrollmentError(
      'refused',
      problem.code,
      `the controller refused the enrollment: HTTP ${answer.status} ${problem.code ?? '(no problem code)'}` +
        (problem.detail === null ? '' : `: ${problem.detail}`),
      answer.status,
    );
  }
  const response = verifyEnrollResponse(answer.body, {
    requestId: request.id,
    nodeName: options.nodeName,
    controllerKeyFingerprint: options.controllerKeyFingerprint,
    now,
  });
  const { body } = response;
  options.logger.info(
    {
      event: 'enrolled',
      nodeId: body.nodeId,
      lifecycle: body.lifecycle,
      workflowId: body.workflowId,
      controllerKeyId: body.controllerKeyId,
    },
    `enrolled as ${body.nodeId}`,
  );
  return {
    format: ENROLLMENT_FILE_FORMAT,
    nodeId: body.nodeId,
    nodeName: body.nodeName,
    controllerKeyId: body.controllerKeyId,
    controllerPublicKey: body.controllerPublicKey,
    workflowId: body.workflowId,
    heartbeatIntervalSeconds: body.heartbeatIntervalSeconds,
    leaseDurationSeconds: body.leaseDurationSeconds,
    enrolledAt: now.toISOString(),
  };
}

/**
 * Trust on first contact, pinned: the answer names the controller's public
 * key, and the agent believes it only if its fingerprint is the one the
 * operator configured. Then the key id must be the key's own
 * (`ed25519KeyId`), the envelope must be signed by it (and recent), and it
 * must answer this request for this node name.
 */
export function verifyEnrollResponse(
  raw: unknown,
  expected: {
    readonly requestId: string;
    readonly nodeName: string;
    readonly controllerKeyFingerprint: string;
    readonly now: Date;
  },
): EnvelopeOf<'enroll.response'> {
  const untrusted = (code: ErrorCode, message: string): EnrollmentError =>
    new EnrollmentError('untrusted-response', code, `the enrollment answer is not trusted: ${message}`, 200);
  const shape = EnrollResponseEnvelopeSchema.safeParse(raw);
  if (!shape.success) throw untrusted(ErrorCode.VALIDATION_FAILED, 'it is not an enroll.response envelope');
  const { body, signature } = shape.data;
  let controllerKey;
  try {
    controllerKey = parseEd25519PublicKey(body.controllerPublicKey);
  } catch (error: unknown) {
    throw untrusted(
      ErrorCode.VALIDATION_FAILED,
      `controllerPublicKey is not an Ed25519 key (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const fingerprint = sshFingerprint(controllerKey);
  if (fingerprint !== expected.controllerKeyFingerprint) {
    throw untrusted(
      ErrorCode.SIGNATURE_INVALID,
      `the controller key is ${fingerprint}, but controllerKeyFingerprint pins ${expected.controllerKeyFingerprint}`,
    );
  }
  const keyId = ed25519KeyId(controllerKey);
  if (body.controllerKeyId !== keyId || signature.keyId !== keyId) {
    throw untrusted(
      ErrorCode.SIGNATURE_INVALID,
      `controllerKeyId and the signature's keyId must both be ${keyId}`,
    );
  }
  let envelope;
  try {
    envelope = verifyEnvelope(new Map([[keyId, controllerKey]]), raw, {
      now: expected.now,
      nodeId: body.nodeId,
      types: ['enroll.response'],
    });
  } catch (error: unknown) {
    if (error instanceof LunaNexaError) throw untrusted(error.code, error.message);
    throw error;
  }
  if (envelope.type !== 'enroll.response') throw untrusted(ErrorCode.VALIDATION_FAILED, 'wrong message type');
  if (envelope.body.inReplyTo !== expected.requestId) {
    throw untrusted(
      ErrorCode.VALIDATION_FAILED,
      `it answers ${envelope.body.inReplyTo}, not ${expected.requestId}`,
    );
  }
  if (envelope.body.nodeName !== expected.nodeName) {
    throw untrusted(
      ErrorCode.VALIDATION_FAILED,
      `it enrolls ${envelope.body.nodeName}, not ${expected.nodeName}`,
    );
  }
  return envelope;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.throwIfAborted();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
