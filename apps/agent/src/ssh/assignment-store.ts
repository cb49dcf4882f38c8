import { readFile } from 'node:fs/promises';
import {
  assignmentSpecDigest,
  GenerationFence,
  KeyIdSchema,
  type AcceptedAssignmentSummary,
  type AckResult,
} from '@lunanexa/agent-protocol';
import {
  AssignmentSchema,
  canonicalJson,
  DigestSchema,
  ErrorCode,
  IsoTimestampSchema,
  LunaNexaError,
  OpaqueIdSchema,
  type Assignment,
} from '@lunanexa/contracts';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-file';

/** `<dataDir>/assignments.json`. */
export const ASSIGNMENTS_FILE = 'assignments.json';
export const ASSIGNMENTS_FILE_FORMAT = 'lunanexa-agent-assignments-v1';
/** Most assignments one node holds (the size status.report can carry). */
export const MAX_ASSIGNMENTS = 1024;

export const AcceptedAssignmentSchema = z
  .object({
    assignment: AssignmentSchema,
    specDigest: DigestSchema,
    /** When this generation was first accepted. */
    acceptedAt: IsoTimestampSchema,
    /** When its lease was last extended at the same generation; null if never. */
    leaseRenewedAt: IsoTimestampSchema.nullable(),
    /** The envelope that last changed this entry, and the controller key that signed it. */
    envelopeId: OpaqueIdSchema,
    signedBy: KeyIdSchema,
  })
  .strict();
export type AcceptedAssignment = z.infer<typeof AcceptedAssignmentSchema>;

const AssignmentsFileSchema = z
  .object({
    format: z.literal(ASSIGNMENTS_FILE_FORMAT),
    nodeId: OpaqueIdSchema,
    assignments: z.array(AcceptedAssignmentSchema).max(MAX_ASSIGNMENTS),
  })
  .strict();

export class AssignmentStoreError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'AssignmentStoreError';
  }
}

export interface ApplyOutcome {
  readonly result: AckResult;
  readonly entry: AcceptedAssignment;
}

/**
 * The agent's durable desired state: every assignment it accepted, with the
 * generation fence derived from it. Changes are serialised (one at a time,
 * across all SSH channels), written to disk atomically and fsync'd BEFORE the
 * in-memory state changes and before anyone is told (the ack is sent after
 * `apply` resolves). A failed write changes nothing.
 *
 * Entries are never dropped: an assignment the controller no longer wants is
 * sent again with intent `Stop` at a higher generation, which keeps it fenced.
 */
export class AssignmentStore {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly file: string,
    readonly nodeId: string,
    private entries: ReadonlyMap<string, AcceptedAssignment>,
    private readonly fence: GenerationFence,
  ) {}

  /**
   * Loads `file`; a missing file is an empty store (first start). A file that
   * does not validate — wrong node, bad digest, duplicate id, not JSON — is an
   * error: starting empty would silently drop the fence.
   */
  static async open(file: string, nodeId: string): Promise<AssignmentStore> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error: unknown) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        return new AssignmentStore(file, nodeId, new Map(), new GenerationFence());
      }
      throw error;
    }
    let document: unknown;
    try {
      document = JSON.parse(text) as unknown;
    } catch {
      throw new AssignmentStoreError(file, 'is not JSON');
    }
    const parsed = AssignmentsFileSchema.safeParse(document);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new AssignmentStoreError(
        file,
        `does not validate (${first === undefined ? 'unknown problem' : `${first.path.join('.')}: ${first.message}`})`,
      );
    }
    if (parsed.data.nodeId !== nodeId) {
      throw new AssignmentStoreError(file, `belongs to node ${parsed.data.nodeId}, not ${nodeId}`);
    }
    const entries = new Map<string, AcceptedAssignment>();
    for (const entry of parsed.data.assignments) {
      const { id } = entry.assignment;
      if (entries.has(id)) throw new AssignmentStoreError(file, `holds assignment ${id} twice`);
      if (entry.assignment.nodeId !== nodeId) {
        throw new AssignmentStoreError(file, `assignment ${id} is for node ${entry.assignment.nodeId}`);
      }
      if (assignmentSpecDigest(entry.assignment) !== entry.specDigest) {
        throw new AssignmentStoreError(file, `assignment ${id} does not match its specDigest`);
      }
      entries.set(id, entry);
    }
    const fence = new GenerationFence(
      [...entries.values()].map((entry) => ({
        key: entry.assignment.id,
        generation: entry.assignment.generation,
        digest: entry.specDigest,
      })),
    );
    return new AssignmentStore(file, nodeId, entries, fence);
  }

  /** Accepted assignments, ordered by id. */
  list(): AcceptedAssignment[] {
    return [...this.entries.values()].sort((a, b) => compare(a.assignment.id, b.assignment.id));
  }

  get(assignmentId: string): AcceptedAssignment | undefined {
    return this.entries.get(assignmentId);
  }

  /** The generation the fence holds for an assignment, or null. */
  highestGeneration(assignmentId: string): number | null {
    return this.fence.get(assignmentId)?.generation ?? null;
  }

  summaries(): AcceptedAssignmentSummary[] {
    return this.list().map((entry) => ({
      assignmentId: entry.assignment.id,
      deploymentId: entry.assignment.deploymentId,
      generation: entry.assignment.generation,
      intent: entry.assignment.intent,
      leaseExpiresAt: entry.assignment.leaseExpiresAt,
      specDigest: entry.specDigest,
      acceptedAt: entry.acceptedAt,
    }));
  }

  /**
   * Applies a verified assignment. Throws LunaNexaError, with nothing changed:
   * STALE_GENERATION (fence), LEASE_EXPIRED (the lease is already over),
   * VALIDATION_FAILED (for another node), NO_CAPACITY (MAX_ASSIGNMENTS held),
   * INTERNAL (the write failed; the cause is attached).
   */
  apply(input: {
    readonly assignment: Assignment;
    readonly envelopeId: string;
    readonly signedBy: string;
    readonly now: Date;
  }): Promise<ApplyOutcome> {
    const run = this.queue.then(() => this.applyNow(input));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async applyNow(input: {
    readonly assignment: Assignment;
    readonly envelopeId: string;
    readonly signedBy: string;
    readonly now: Date;
  }): Promise<ApplyOutcome> {
    const { assignment, now } = input;
    if (assignment.nodeId !== this.nodeId) {
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'the assignment is for another node', [
        { path: 'nodeId', message: 'is not this node' },
      ]);
    }
    const digest = assignmentSpecDigest(assignment);
    const decision = this.fence.check(assignment.id, assignment.generation, digest);
    if (Date.parse(assignment.leaseExpiresAt) <= now.getTime()) {
      throw new LunaNexaError(
        ErrorCode.LEASE_EXPIRED,
        `the lease of ${assignment.id} expired at ${assignment.leaseExpiresAt}`,
      );
    }
    const held = this.entries.get(assignment.id);
    let result: AckResult;
    let entry: AcceptedAssignment;
    if (decision === 'same' && held !== undefined) {
      if (Date.parse(assignment.leaseExpiresAt) <= Date.parse(held.assignment.leaseExpiresAt)) {
        return { result: 'already-accepted', entry: held };
      }
      result = 'lease-renewed';
      entry = {
        ...held,
        assignment,
        leaseRenewedAt: now.toISOString(),
        envelopeId: input.envelopeId,
        signedBy: input.signedBy,
      };
    } else {
      if (held === undefined && this.entries.size >= MAX_ASSIGNMENTS) {
        throw new LunaNexaError(
          ErrorCode.NO_CAPACITY,
          `the agent already holds ${MAX_ASSIGNMENTS} assignments`,
        );
      }
      result = 'accepted';
      entry = {
        assignment,
        specDigest: digest,
        acceptedAt: now.toISOString(),
        leaseRenewedAt: null,
        envelopeId: input.envelopeId,
        signedBy: input.signedBy,
      };
    }
    const next = new Map(this.entries);
    next.set(assignment.id, entry);
    await this.persist(next);
    this.entries = next;
    if (result === 'accepted') this.fence.accept(assignment.id, assignment.generation, digest);
    return { result, entry };
  }

  private async persist(entries: ReadonlyMap<string, AcceptedAssignment>): Promise<void> {
    const document = {
      format: ASSIGNMENTS_FILE_FORMAT,
      nodeId: this.nodeId,
      assignments: [...entries.values()].sort((a, b) => compare(a.assignment.id, b.assignment.id)),
    };
    try {
      await writeFileAtomic(this.file, canonicalJson(document), 0o600);
    } catch (error: unknown) {
      const failure = new LunaNexaError(ErrorCode.INTERNAL, 'could not persist the assignment');
      failure.cause = error;
      throw failure;
    }
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
