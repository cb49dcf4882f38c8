/**
 * What one GraphQL operation may cost the API, decided before it runs.
 *
 * A document is measured twice. Before it is parsed, its raw tokens and brace
 * nesting are counted (the parser recurses once per level, so a 5,000-deep
 * document must never reach it). After it is parsed, and before the schema
 * rules validate it (one of which compares fields pairwise), its operation is
 * priced: each field costs its own price plus its sub-selection's cost times
 * the number of items a list can hold, fragments priced once and counted at
 * every spread. Expensive fields (chain verification, search) carry their own
 * price. Every limit is checked, and the refusal names the first one exceeded
 * with the measured value and the limit.
 *
 * The same cost is taken from the caller's token bucket (`takeQueryCost`), so
 * a caller cannot stay under each document's budget and still flood the API.
 */

export interface QueryBudget {
  /** Lexical tokens in the document, counted before parsing. */
  readonly maxTokens: number;
  /** Nesting of fields (fragments followed), and of braces before parsing. */
  readonly maxDepth: number;
  /** Fields that carry an alias, counted once per time they are selected. */
  readonly maxAliases: number;
  /** Price of the operation (see priceField). */
  readonly maxCost: number;
}

/**
 * The console's, CLI's and SDK's committed documents have at most about
 * 1,000 tokens, depth 5, 8 aliases and cost 5,060 (ConsoleModels: models ×
 * versions, both unbounded lists); apps/api/test/query-budget.spec.ts
 * measures every one of them against these limits, so a document of
 * ours that outgrows them fails a test before it reaches an operator.
 */
export const DEFAULT_QUERY_BUDGET: QueryBudget = {
  maxTokens: 5_000,
  maxDepth: 12,
  maxAliases: 40,
  maxCost: 20_000,
};

/** Items a list field is priced at when its arguments do not bound it. */
export const UNBOUNDED_LIST_SIZE = 50;

/** Arguments that bound how many items a list field returns. */
const LIST_SIZE_ARGUMENTS = ['first', 'last', 'limit'] as const;

/**
 * Fields whose resolver does work out of proportion to what they return,
 * priced at what they cost the database (a plain field costs 1).
 */
const EXPENSIVE_FIELDS: Readonly<Record<string, (args: FieldArguments) => number>> = {
  // An incremental check reads the events since the last verified checkpoint; a full one reads the whole chain.
  'Query.auditChainStatus': (args) => (args['mode'] === 'FULL' ? 10_000 : 1_000),
  // Hashes the registry and desired state and verifies the whole chain, like a FULL check.
  'Query.controlPlaneDigest': () => 10_000,
  // A text search over several tables.
  'Query.search': () => 500,
};

/** Introspection reads the in-memory schema; it is priced flat, its shape is bounded separately. */
export const INTROSPECTION_COST = 100;
/** Nested lists inside introspection (`types { fields { args } }` is 3); deeper cycles multiply the schema. */
export const MAX_INTROSPECTION_LIST_NESTING = 3;

export type FieldArguments = Readonly<Record<string, unknown>>;

export interface FieldToPrice {
  /** The GraphQL type the field is selected on, e.g. `Query`, `Node`. */
  readonly parentType: string;
  readonly name: string;
  /** Argument values as far as they are known (literals and supplied variables). */
  readonly args: FieldArguments;
  /** Whether the field returns a list (through any non-null wrappers). */
  readonly returnsList: boolean;
  /** Whether it returns a scalar or an enum (or a list of them): a value already loaded with its parent. */
  readonly returnsLeaf: boolean;
}

export interface FieldPrice {
  /** What the field costs by itself. */
  readonly own: number;
  /** How many times its sub-selection is paid for. */
  readonly multiplier: number;
}

/**
 * A field's price: expensive fields their own; a root field (each is at
 * least one database round trip) ROOT_FIELD_COST; an object or list field 1;
 * a scalar or enum nothing, since it comes with the row its parent loaded.
 * `__typename` is free. A list pays its sub-selection once per item it may hold.
 */
export function priceField(field: FieldToPrice): FieldPrice {
  const multiplier = field.returnsList ? listSize(field.args) : 1;
  const expensive = EXPENSIVE_FIELDS[`${field.parentType}.${field.name}`];
  if (expensive) return { own: expensive(field.args), multiplier };
  if (ROOT_TYPES.has(field.parentType)) return { own: ROOT_FIELD_COST, multiplier };
  if (field.name === '__typename' || field.returnsLeaf) return { own: 0, multiplier };
  return { own: 1, multiplier };
}

/** A query or mutation field: one database round trip or more. */
export const ROOT_FIELD_COST = 10;
const ROOT_TYPES = new Set(['Query', 'Mutation', 'Subscription']);

/** The list size a field's `first`/`last`/`limit` argument asks for, else UNBOUNDED_LIST_SIZE. */
export function listSize(args: FieldArguments): number {
  for (const name of LIST_SIZE_ARGUMENTS) {
    const value = args[name];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  return UNBOUNDED_LIST_SIZE;
}

/** A field's total: its own price plus its sub-selection's cost for each item it can hold. */
export function costWithSelection(price: FieldPrice, selectionCost: number): number {
  return price.own + price.multiplier * selectionCost;
}

export function isIntrospectionField(name: string): boolean {
  return name === '__schema' || name === '__type';
}

/** What a document measured before it was parsed. */
export interface LexicalMeasure {
  readonly tokens: number;
  readonly depth: number;
}

/** What an operation measured once parsed (fragments followed). */
export interface OperationMeasure {
  readonly depth: number;
  readonly aliases: number;
  readonly cost: number;
  readonly introspectionListNesting: number;
}

export type QueryLimitName = 'tokens' | 'depth' | 'aliases' | 'cost' | 'introspectionListNesting';

export type QueryBudgetVerdict =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly limit: QueryLimitName;
      readonly measured: number;
      readonly max: number;
    };

function firstExceeded(checks: readonly [QueryLimitName, number, number][]): QueryBudgetVerdict {
  for (const [limit, measured, max] of checks) {
    if (measured > max) return { allowed: false, limit, measured, max };
  }
  return { allowed: true };
}

/** Checked before parsing: a document refused here is never handed to the parser. */
export function judgeLexicalMeasure(measure: LexicalMeasure, budget: QueryBudget): QueryBudgetVerdict {
  return firstExceeded([
    ['tokens', measure.tokens, budget.maxTokens],
    // Braces also open input objects and fragment bodies, so the lexical bound has room over the field bound.
    ['depth', measure.depth, budget.maxDepth * 2],
  ]);
}

/** Checked after parsing, before validation and execution. */
export function judgeOperation(measure: OperationMeasure, budget: QueryBudget): QueryBudgetVerdict {
  return firstExceeded([
    ['depth', measure.depth, budget.maxDepth],
    ['aliases', measure.aliases, budget.maxAliases],
    ['introspectionListNesting', measure.introspectionListNesting, MAX_INTROSPECTION_LIST_NESTING],
    ['cost', measure.cost, budget.maxCost],
  ]);
}

/** The refusal's message: what was measured, against which limit. */
export function describeQueryRefusal(verdict: Extract<QueryBudgetVerdict, { allowed: false }>): string {
  const what: Record<QueryLimitName, string> = {
    tokens: 'has more tokens',
    depth: 'nests deeper',
    aliases: 'has more aliased fields',
    cost: 'costs more',
    introspectionListNesting: 'nests introspection lists deeper',
  };
  return `The operation ${what[verdict.limit]} (${verdict.measured}) than the API allows (${verdict.max}); nothing was run.`;
}

/**
 * A caller's allowance of query cost: a token bucket of `capacity` units,
 * refilled at `refillPerSecond`. Each operation takes its price; one that
 * does not fit waits (RATE_LIMITED with a Retry-After).
 */
export interface QueryRatePolicy {
  readonly capacity: number;
  readonly refillPerSecond: number;
}

/** Five maximal operations at once, then one every two seconds. */
export const DEFAULT_QUERY_RATE: QueryRatePolicy = {
  capacity: 5 * DEFAULT_QUERY_BUDGET.maxCost,
  refillPerSecond: DEFAULT_QUERY_BUDGET.maxCost / 2,
};

/**
 * A caller's bucket, kept as one instant: when it is full again. At or
 * before that instant's passing the bucket holds `capacity − (fullAt − now) ×
 * refillPerSecond`; after it, `capacity`; a caller without a bucket has a
 * full one. Taking a cost moves the instant `cost ÷ refillPerSecond` later
 * (from now, if it had passed), and is allowed when the instant stays within
 * `capacity ÷ refillPerSecond` of now — the token bucket's arithmetic with
 * one value instead of a level and a time, so a database can apply it in one
 * statement (libs/persistence graphql-rate-buckets.ts does exactly
 * `takeFromQueryBucket`, on the database's clock).
 */
export interface QueryBucket {
  readonly fullAtMs: number;
}

/** One operation's cost as the bucket's arithmetic uses it. */
export interface QueryRateCharge {
  /** How much later the caller's bucket is full after paying: the charged cost ÷ the rate, in ms. */
  readonly chargeMs: number;
  /** The furthest ahead of now that instant may be: capacity ÷ rate, in ms. Never below `chargeMs`. */
  readonly burstMs: number;
}

/**
 * The charge for `cost`. A cost above the capacity is charged as the
 * capacity (the budget check refuses such an operation first; this keeps the
 * arithmetic total, and a full bucket can always pay one charge).
 */
export function queryRateCharge(cost: number, policy: QueryRatePolicy): QueryRateCharge {
  const charged = Math.min(Math.max(0, cost), policy.capacity);
  return {
    chargeMs: (charged * 1000) / policy.refillPerSecond,
    burstMs: (policy.capacity * 1000) / policy.refillPerSecond,
  };
}

/** What one take did: whether it was granted, and the bucket's full instant after it (unchanged when refused). */
export interface QueryBucketTake {
  readonly granted: boolean;
  readonly fullAtMs: number;
  readonly nowMs: number;
}

/**
 * Takes a charge from a bucket (undefined: a full one) at `nowMs`. The clock
 * going backwards refills nothing: the instant never moves earlier, so the
 * wait seen from an earlier `nowMs` is longer, never shorter.
 */
export function takeFromQueryBucket(
  bucket: QueryBucket | undefined,
  charge: QueryRateCharge,
  nowMs: number,
): QueryBucketTake {
  const fullAtMs = bucket?.fullAtMs ?? nowMs;
  const next = Math.max(fullAtMs, nowMs) + charge.chargeMs;
  return next <= nowMs + charge.burstMs
    ? { granted: true, fullAtMs: next, nowMs }
    : { granted: false, fullAtMs, nowMs };
}

export type QueryRateDecision =
  { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

/**
 * The answer to a take: a refused caller may retry once its bucket has
 * refilled by the charge, when `fullAt + charge − burst` has passed (whole
 * seconds, at least one).
 */
export function queryRateDecision(take: QueryBucketTake, charge: QueryRateCharge): QueryRateDecision {
  if (take.granted) return { allowed: true };
  const waitMs = take.fullAtMs + charge.chargeMs - charge.burstMs - take.nowMs;
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/** Takes `cost` from a bucket kept in memory: the decision and the bucket to keep. */
export function takeQueryCost(
  bucket: QueryBucket | undefined,
  cost: number,
  nowMs: number,
  policy: QueryRatePolicy,
): QueryRateDecision & { readonly bucket: QueryBucket } {
  const charge = queryRateCharge(cost, policy);
  const take = takeFromQueryBucket(bucket, charge, nowMs);
  return { ...queryRateDecision(take, charge), bucket: { fullAtMs: take.fullAtMs } };
}

/** A bucket that has refilled to capacity carries no state worth keeping (no bucket is a full one). */
export function queryBucketIsFull(bucket: QueryBucket, nowMs: number): boolean {
  return bucket.fullAtMs <= nowMs;
}
