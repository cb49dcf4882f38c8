import cluster, { type Worker } from 'node:cluster';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import type { TenantQuotaLimits } from '@lunanexa/domain';
import { EXIT_CONFIG, type Logger } from '@lunanexa/observability';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { AdmissionLimits } from './admission';
import type { CredentialTable } from './credential-table';
import { type LeaseDecision, QuotaLedger } from './quota-ledger';
import { NO_TICKET, type QuotaTicket, type TenantQuotaGate, quotaRefusal, unlimited } from './tenant-quotas';

/**
 * The gateway as N worker processes sharing one port (`node:cluster`: the
 * primary accepts connections and hands them to workers in turn). Each
 * worker is a whole gateway — its own route, credential and policy tables
 * loaded from PostgreSQL, its own admission queue — and the primary serves
 * no HTTP. It holds what must be one number for the whole host: the tenant
 * quota counters (QuotaLedger), which workers consult over IPC only for
 * tenants that have a limit, and the /metrics sum, which any worker asks
 * it for (prom-client's AggregatorRegistry collects every worker's registry).
 */

/** Worker → primary. */
type ToPrimary =
  | {
      /** Up to `want` admissions for `tenantId`, counted by the primary as they are granted. */
      readonly type: 'lunanexa:quota-lease';
      readonly id: number;
      readonly tenantId: string;
      readonly limits: TenantQuotaLimits;
      readonly want: number;
    }
  | {
      /** `count` admitted requests ended, using `tokensUsed` tokens between them. */
      readonly type: 'lunanexa:quota-finish';
      readonly tenantId: string;
      readonly limits: TenantQuotaLimits;
      readonly count: number;
      readonly tokensUsed: number;
    }
  | {
      /** `count` leased admissions the worker did not use. */
      readonly type: 'lunanexa:quota-return';
      readonly tenantId: string;
      readonly limits: TenantQuotaLimits;
      readonly count: number;
    }
  | { readonly type: 'lunanexa:metrics'; readonly id: number };

/** Primary → worker. */
type ToWorker =
  | { readonly type: 'lunanexa:quota-decision'; readonly id: number; readonly decision: LeaseDecision }
  | {
      /** Another worker was refused for `tenantId`: give back the admissions you hold unused. */
      readonly type: 'lunanexa:quota-recall';
      readonly tenantId: string;
    }
  | {
      readonly type: 'lunanexa:metrics-text';
      readonly id: number;
      readonly text: string | null;
      readonly error?: string;
    }
  | { readonly type: 'lunanexa:drain' };

/**
 * Messages sent in one event-loop turn travel as one: each IPC message is a
 * pipe write and a wake-up of the other process, the largest cost of a
 * limited tenant's request in a worker's profile.
 */
interface Batch<T> {
  readonly type: 'lunanexa:batch';
  readonly items: readonly T[];
}

function isMessage<T extends { type: string }>(message: unknown, prefix = 'lunanexa:'): message is T {
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as { type?: unknown }).type === 'string' &&
    (message as { type: string }).type.startsWith(prefix)
  );
}

/** The longest a worker holds back the news that a limited tenant's request ended. */
const FINISH_DELAY_MS = 5;
/** How long a worker waits for the primary's answer before refusing with 503. */
const PRIMARY_ANSWER_MS = 5_000;
/** A worker that dies sooner than this after its start is restarted after a growing pause. */
const QUICK_DEATH_MS = 5_000;
const MAX_RESTART_PAUSE_MS = 5_000;

/**
 * Per-worker share of the replica limits: a replica still gets at most what
 * it serves without queueing from the whole host, not N times that.
 * Rounded up so no worker ever gets 0 (with fewer slots than workers the
 * host may run one request more per worker than the limit).
 */
export function workerAdmissionLimits(limits: AdmissionLimits, workers: number): AdmissionLimits {
  return {
    ...limits,
    replicaConcurrency: Math.ceil(limits.replicaConcurrency / workers),
    queuePerReplica: Math.ceil(limits.queuePerReplica / workers),
  };
}

interface Pending<T> {
  resolve(value: T): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** A worker's side of the IPC channel to the primary: requests with an id, answered once. */
class PrimaryChannel {
  private nextId = 1;
  private readonly quota = new Map<number, Pending<LeaseDecision>>();
  /** Set by the worker's quota gate: the primary asks for unused leased admissions back. */
  onRecall: (tenantId: string) => void = () => undefined;
  private readonly metrics = new Map<number, Pending<string>>();

  private outbox: ToPrimary[] = [];

  constructor(private readonly onDrain: () => void) {
    process.on('message', (message: unknown) => {
      if (!isMessage<ToWorker | Batch<ToWorker>>(message)) return;
      if (message.type === 'lunanexa:batch') for (const item of message.items) this.receive(item);
      else this.receive(message);
    });
    process.once('disconnect', () => {
      const gone = new Error('the gateway primary is gone');
      for (const pending of [...this.quota.values(), ...this.metrics.values()]) {
        clearTimeout(pending.timer);
        pending.reject(gone);
      }
      this.quota.clear();
      this.metrics.clear();
    });
  }

  private receive(message: ToWorker): void {
    if (message.type === 'lunanexa:drain') this.onDrain();
    else if (message.type === 'lunanexa:quota-recall') this.onRecall(message.tenantId);
    else if (message.type === 'lunanexa:quota-decision') {
      const pending = this.quota.get(message.id);
      if (pending === undefined) return;
      this.quota.delete(message.id);
      clearTimeout(pending.timer);
      pending.resolve(message.decision);
    } else {
      const pending = this.metrics.get(message.id);
      if (pending === undefined) return;
      this.metrics.delete(message.id);
      clearTimeout(pending.timer);
      if (message.text === null) pending.reject(new Error(message.error ?? 'no metrics'));
      else pending.resolve(message.text);
    }
  }

  /**
   * Queues a message for the primary. Urgent ones (someone waits for the
   * answer) leave at the end of this event-loop turn; the rest (a request's
   * end) ride along with the next urgent one, or leave after
   * FINISH_DELAY_MS — a freed slot is seen by the primary that much later
   * at most, and a busy worker sends one message per request instead of two.
   */
  send(message: ToPrimary, urgent = true): void {
    this.outbox.push(message);
    if (urgent && !this.flushSoon) {
      this.flushSoon = true;
      setImmediate(() => this.flush());
    } else if (!urgent && this.flushLater === undefined) {
      this.flushLater = setTimeout(() => this.flush(), FINISH_DELAY_MS);
    }
  }

  private flushSoon = false;
  private flushLater: NodeJS.Timeout | undefined;

  private flush(): void {
    this.flushSoon = false;
    clearTimeout(this.flushLater);
    this.flushLater = undefined;
    const items = this.outbox;
    this.outbox = [];
    if (!process.connected || items.length === 0) return;
    process.send?.(
      items.length === 1 ? items[0] : ({ type: 'lunanexa:batch', items } satisfies Batch<ToPrimary>),
    );
  }

  lease(
    tenantId: string,
    limits: TenantQuotaLimits,
    want: number,
    onLateGrant: (granted: number) => void,
  ): Promise<LeaseDecision> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!process.connected) {
        reject(new Error('the gateway primary is gone'));
        return;
      }
      const timer = setTimeout(() => {
        // Stays registered as late: if the primary grants it after all, the admissions are given back.
        this.quota.set(id, {
          resolve: (decision) => {
            if (decision.admit) onLateGrant(decision.granted);
          },
          reject: () => undefined,
          timer: setTimeout(() => this.quota.delete(id), 60_000).unref(),
        });
        reject(new Error(`the gateway primary did not answer within ${PRIMARY_ANSWER_MS} ms`));
      }, PRIMARY_ANSWER_MS);
      this.quota.set(id, { resolve, reject, timer });
      this.send({ type: 'lunanexa:quota-lease', id, tenantId, limits, want });
    });
  }

  metricsText(): Promise<string> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!process.connected) {
        reject(new Error('the gateway primary is gone'));
        return;
      }
      const timer = setTimeout(() => {
        this.metrics.delete(id);
        reject(new Error(`the gateway primary did not answer within ${PRIMARY_ANSWER_MS} ms`));
      }, PRIMARY_ANSWER_MS);
      this.metrics.set(id, { resolve, reject, timer });
      this.send({ type: 'lunanexa:metrics', id });
    });
  }
}

/** A worker's admissions of one tenant: leased from the primary, used here, finishes summed. */
interface TenantLease {
  /** The limits the lease was granted under; a changed limit gives the lease back. */
  limits: TenantQuotaLimits;
  /** Admissions granted by the primary and not used yet. */
  spare: number;
  /** A lease request on its way to the primary. */
  asking: boolean;
  /** Requests waiting for the answer, served first come, first served. */
  readonly waiters: { resolve(ticket: QuotaTicket): void; reject(error: Error): void }[];
  /** Admitted requests not ended yet. */
  running: number;
  /** Requests that ended since the last report, and their tokens. */
  finished: number;
  tokensUsed: number;
  /** Whether an admission used the lease since the last idle sweep. */
  used: boolean;
  /** The last lease held more than one admission: the tenant is far from its limits, so ask ahead. */
  roomy: boolean;
}

/** Unused admissions go back to the primary after one to two of these without an admission. */
export const LEASE_IDLE_MS = 50;
/**
 * The longest a worker holds back the news that requests ended (their slots
 * and tokens): FINISH_DELAY_MS near a tenant's limits, where a late report
 * could refuse a request a freed slot would have admitted; longer for a
 * tenant far from its limits, whose reports are then one message per
 * ROOMY_FINISH_REPORT_MS or per ROOMY_FINISH_BATCH ends instead of hundreds
 * a second. Ends also ride along with the worker's next lease request.
 */
const ROOMY_FINISH_REPORT_MS = 25;
const ROOMY_FINISH_BATCH = 16;

/**
 * Tenant quotas in a worker. The primary keeps the counters for the whole
 * host; a worker leases admissions from it in batches of up to `leaseSize`
 * (QuotaLedger.lease: each counted there as an admitted request when
 * granted) and admits a request at once while it holds one, asking for the
 * next batch when half is used, so a busy tenant's request crosses no
 * process boundary. Ends are summed per tenant and reported every few
 * milliseconds; unused admissions go back after LEASE_IDLE_MS without an
 * admission, or at once when the primary recalls them because another
 * worker was refused. A tenant without limits is answered here, without a
 * message. `leaseSize` 1 asks the primary for every request.
 */
export class ClusterTenantQuotas implements TenantQuotaGate {
  private readonly leases = new Map<string, TenantLease>();
  private reportTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly table: CredentialTable,
    private readonly channel: PrimaryChannel,
    private readonly leaseSize: number,
  ) {
    channel.onRecall = (tenantId) => {
      const lease = this.leases.get(tenantId);
      if (lease !== undefined) this.giveBack(tenantId, lease);
    };
    // Lives as long as the worker; unref'd, so it never keeps one alive.
    setInterval(() => this.sweep(), LEASE_IDLE_MS).unref();
  }

  admit(tenantId: string): QuotaTicket | Promise<QuotaTicket> {
    const limits = this.table.quota(tenantId);
    let lease = this.leases.get(tenantId);
    if (unlimited(limits)) {
      if (lease !== undefined) this.giveBack(tenantId, lease);
      return NO_TICKET;
    }
    if (lease === undefined) {
      lease = {
        limits,
        spare: 0,
        asking: false,
        waiters: [],
        running: 0,
        finished: 0,
        tokensUsed: 0,
        used: false,
        roomy: false,
      };
      this.leases.set(tenantId, lease);
    } else if (!sameLimits(lease.limits, limits)) {
      // Granted under other limits: back to the primary, which counts under the new ones.
      this.giveBack(tenantId, lease);
      this.report(tenantId, lease);
      lease.limits = limits;
    }
    lease.used = true;
    if (lease.spare > 0 && lease.waiters.length === 0) {
      lease.spare -= 1;
      if (lease.roomy && lease.spare * 2 < this.leaseSize && !lease.asking) this.ask(tenantId, lease);
      return this.ticket(tenantId, lease);
    }
    const waiting = new Promise<QuotaTicket>((resolve, reject) => lease.waiters.push({ resolve, reject }));
    if (!lease.asking) this.ask(tenantId, lease);
    return waiting;
  }

  private ticket(tenantId: string, lease: TenantLease): QuotaTicket {
    let done = false;
    lease.running += 1;
    return {
      finish: (tokensUsed: number): void => {
        if (done) return;
        done = true;
        lease.running -= 1;
        lease.finished += 1;
        if (Number.isFinite(tokensUsed) && tokensUsed > 0) lease.tokensUsed += tokensUsed;
        // Far from the limits a batch of ends waits up to ROOMY_FINISH_REPORT_MS, but never more than
        // ROOMY_FINISH_BATCH of them: slots the primary still counts as taken stay few at any rate.
        // Near them the end leaves now, in the outbox (within FINISH_DELAY_MS, or with the next urgent message).
        if (!lease.roomy || lease.finished >= ROOMY_FINISH_BATCH) this.report(tenantId, lease);
        else this.reportTimer ??= setTimeout(() => this.reportAll(), ROOMY_FINISH_REPORT_MS);
      },
    };
  }

  private ask(tenantId: string, lease: TenantLease): void {
    lease.asking = true;
    // Ends so far ride along, ahead of the ask in the same batch: the primary frees their slots first.
    this.report(tenantId, lease);
    const limits = lease.limits;
    const want = Math.max(this.leaseSize - lease.spare, lease.waiters.length);
    this.channel
      .lease(tenantId, limits, want, (granted) =>
        this.channel.send({ type: 'lunanexa:quota-return', tenantId, limits, count: granted }, false),
      )
      .then(
        (decision) => {
          lease.asking = false;
          lease.roomy = decision.admit && decision.granted > 1;
          if (!decision.admit) {
            for (const waiter of lease.waiters.splice(0))
              waiter.reject(quotaRefusal(tenantId, limits, decision));
            return;
          }
          if (lease.limits !== limits) {
            // The limits changed while the lease was on its way: it goes back, the waiters ask again.
            this.channel.send(
              { type: 'lunanexa:quota-return', tenantId, limits, count: decision.granted },
              false,
            );
          } else lease.spare += decision.granted;
          while (lease.spare > 0 && lease.waiters.length > 0) {
            lease.spare -= 1;
            lease.waiters.shift()?.resolve(this.ticket(tenantId, lease));
          }
          if (lease.waiters.length > 0 || (lease.roomy && lease.spare * 2 < this.leaseSize))
            this.ask(tenantId, lease);
        },
        (error: unknown) => {
          lease.asking = false;
          // Fail closed: without the shared counters a limited tenant could exceed its quota N times over.
          const unavailable = new LunaNexaError(
            ErrorCode.DEPENDENCY_UNAVAILABLE,
            `Tenant quotas cannot be checked: ${error instanceof Error ? error.message : String(error)}.`,
          );
          for (const waiter of lease.waiters.splice(0)) waiter.reject(unavailable);
        },
      );
  }

  /** Unused admissions back to the primary. */
  private giveBack(tenantId: string, lease: TenantLease): void {
    if (lease.spare === 0) return;
    this.channel.send(
      { type: 'lunanexa:quota-return', tenantId, limits: lease.limits, count: lease.spare },
      false,
    );
    lease.spare = 0;
  }

  private report(tenantId: string, lease: TenantLease): void {
    if (lease.finished === 0) return;
    this.channel.send(
      {
        type: 'lunanexa:quota-finish',
        tenantId,
        limits: lease.limits,
        count: lease.finished,
        tokensUsed: lease.tokensUsed,
      },
      false,
    );
    lease.finished = 0;
    lease.tokensUsed = 0;
  }

  private reportAll(): void {
    this.reportTimer = undefined;
    for (const [tenantId, lease] of this.leases) this.report(tenantId, lease);
  }

  /** Leases no admission used since the last sweep go back; a tenant with nothing left is forgotten. */
  private sweep(): void {
    for (const [tenantId, lease] of this.leases) {
      if (lease.used) {
        lease.used = false;
        continue;
      }
      this.giveBack(tenantId, lease);
      if (lease.running === 0 && lease.finished === 0 && !lease.asking && lease.waiters.length === 0)
        this.leases.delete(tenantId);
    }
  }
}

function sameLimits(a: TenantQuotaLimits, b: TenantQuotaLimits): boolean {
  return (
    a === b ||
    (a.requestsPerMinute === b.requestsPerMinute &&
      a.tokensPerMinute === b.tokensPerMinute &&
      a.maxConcurrentRequests === b.maxConcurrentRequests)
  );
}

/** What main.ts wires into a worker's gateway. */
/** How long a worker waits for its first snapshots before it listens anyway (and answers 503 until they load). */
export const WORKER_LOAD_WAIT_MS = 10_000;

/**
 * Resolves once every table is ready, or after `limitMs`, whichever is first;
 * true when they all were. A worker calls it before it listens: the cluster
 * hands a listening worker its share of new connections at once, and one
 * restarted after a crash would otherwise answer them before it knows a
 * route, a key or a policy, while its siblings serve the host's /ready.
 */
export async function untilLoaded(
  tables: readonly { ready(): boolean }[],
  limitMs: number = WORKER_LOAD_WAIT_MS,
  pollMs = 20,
): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (tables.every((table) => table.ready())) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

export interface WorkerSide {
  readonly workerId: number;
  quotas(table: CredentialTable): TenantQuotaGate;
  /** The /metrics body summed over every worker. */
  readonly metricsText: () => Promise<string>;
}

/**
 * Joins the primary's channel from inside a worker. A drain message from the
 * primary starts the same graceful stop as SIGTERM, unless a signal (Ctrl-C
 * reaches every process of the group) started it already.
 */
/** `leaseSize`: the most admissions a worker leases from the primary at once (LUNANEXA_GATEWAY_QUOTA_LEASE). */
export function joinCluster(registry: Registry, leaseSize: number): WorkerSide {
  const worker = cluster.worker;
  if (worker === undefined) throw new Error('joinCluster outside a cluster worker');
  let signalled = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => (signalled = true));
  const channel = new PrimaryChannel(() => {
    if (!signalled) process.emit('SIGTERM', 'SIGTERM');
  });
  // The primary's AggregatorRegistry asks every worker for this registry; constructing one adds the listener.
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry();
  return {
    workerId: worker.id,
    quotas: (table) => new ClusterTenantQuotas(table, channel, leaseSize),
    metricsText: () => channel.metricsText(),
  };
}

export interface PrimaryOptions {
  readonly workers: number;
  readonly shutdownGraceMs: number;
  readonly logger: Logger;
}

/**
 * The cluster primary: forks the workers, restarts one that dies (its quota
 * slots freed first), answers quota and metrics requests, and on SIGTERM or
 * SIGINT asks every worker to drain, then exits once they have. A worker
 * that cannot start (bad configuration, port taken) before any worker ever
 * listened stops the whole gateway with its exit code, as a single process would.
 */
export function runGatewayPrimary(options: PrimaryOptions): Promise<void> {
  const { logger } = options;
  const ledger = new QuotaLedger(Date.now, options.workers);
  const aggregator = new AggregatorRegistry();
  const startedAt = new Map<number, number>();
  let everListened = false;
  let stopping = false;
  let restartPause = 0;

  const fork = (): Worker => {
    const worker = cluster.fork();
    startedAt.set(worker.id, Date.now());
    worker.once('listening', () => {
      everListened = true;
    });
    return worker;
  };

  const onMessage = (worker: Worker, message: unknown): void => {
    if (!isMessage<ToPrimary | Batch<ToPrimary>>(message)) return;
    const replies: ToWorker[] = [];
    if (message.type === 'lunanexa:batch') for (const item of message.items) handle(worker, item, replies);
    else handle(worker, message, replies);
    if (replies.length === 1) send(worker, replies[0]);
    else if (replies.length > 1)
      send(worker, { type: 'lunanexa:batch', items: replies } satisfies Batch<ToWorker>);
  };

  const handle = (worker: Worker, message: ToPrimary, replies: ToWorker[]): void => {
    switch (message.type) {
      case 'lunanexa:quota-lease': {
        const decision = ledger.lease(worker.id, message.tenantId, message.limits, message.want);
        replies.push({ type: 'lunanexa:quota-decision', id: message.id, decision });
        // Refused while another worker may sit on unused admissions: they come back for the next request.
        if (!decision.admit)
          for (const holder of ledger.holdersOf(message.tenantId, worker.id))
            send(cluster.workers?.[holder], { type: 'lunanexa:quota-recall', tenantId: message.tenantId });
        return;
      }
      case 'lunanexa:quota-finish':
        ledger.finish(worker.id, message.tenantId, message.limits, message.tokensUsed, message.count);
        return;
      case 'lunanexa:quota-return':
        ledger.giveBack(worker.id, message.tenantId, message.limits, message.count);
        return;
      case 'lunanexa:metrics':
        aggregator.clusterMetrics().then(
          (text) => send(worker, { type: 'lunanexa:metrics-text', id: message.id, text }),
          (error: unknown) =>
            send(worker, {
              type: 'lunanexa:metrics-text',
              id: message.id,
              text: null,
              error: error instanceof Error ? error.message : String(error),
            }),
        );
        return;
    }
  };

  return new Promise<void>((resolve) => {
    const finishWhenEmpty = (): void => {
      if (stopping && Object.keys(cluster.workers ?? {}).length === 0) {
        logger.info('every gateway worker has stopped');
        resolve();
      }
    };
    cluster.on('message', onMessage);
    cluster.on('exit', (worker, code, signal) => {
      const freed = ledger.releaseWorker(worker.id);
      const lived = Date.now() - (startedAt.get(worker.id) ?? Date.now());
      startedAt.delete(worker.id);
      if (stopping) {
        finishWhenEmpty();
        return;
      }
      if (!everListened || code === EXIT_CONFIG) {
        logger.error({ worker: worker.id, code, signal }, 'a gateway worker could not start; stopping');
        stopping = true;
        for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGKILL');
        process.exitCode = code ?? 1;
        finishWhenEmpty();
        return;
      }
      restartPause =
        lived < QUICK_DEATH_MS ? Math.min(MAX_RESTART_PAUSE_MS, Math.max(100, restartPause * 2)) : 0;
      logger.warn(
        { worker: worker.id, code, signal, freedQuotaSlots: freed, restartInMs: restartPause },
        'a gateway worker died; starting another',
      );
      setTimeout(() => {
        if (!stopping) fork();
      }, restartPause);
    });

    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        logger.warn({ signal }, 'second signal during shutdown; stopping workers now');
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
        process.exit(1);
      }
      stopping = true;
      logger.info({ signal, workers: options.workers }, 'shutting down: every worker drains its requests');
      for (const worker of Object.values(cluster.workers ?? {})) send(worker, { type: 'lunanexa:drain' });
      // Each worker cuts its own connections after the grace period; this only catches a stuck one.
      setTimeout(() => {
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      }, options.shutdownGraceMs + 5_000).unref();
      finishWhenEmpty();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);

    logger.info({ workers: options.workers, pid: process.pid }, 'gateway primary: starting workers');
    for (let i = 0; i < options.workers; i += 1) fork();
  });
}

function send(worker: Worker | undefined, message: ToWorker | Batch<ToWorker> | undefined): void {
  if (message === undefined) return;
  if (worker?.isConnected()) worker.send(message);
}
