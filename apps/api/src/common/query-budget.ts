import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import {
  Kind,
  Lexer,
  Source,
  TokenKind,
  parse,
  getNamedType,
  getNullableType,
  isLeafType,
  isListType,
  isObjectType,
  isInterfaceType,
  valueFromASTUntyped,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { ErrorCode, HTTP_STATUS_BY_CODE } from '@lunanexa/contracts';
import {
  costWithSelection,
  describeQueryRefusal,
  isIntrospectionField,
  INTROSPECTION_COST,
  judgeLexicalMeasure,
  judgeOperation,
  priceField,
  queryBucketIsFull,
  takeQueryCost,
  type LexicalMeasure,
  type OperationMeasure,
  type QueryBucket,
  type QueryBudget,
  type QueryBudgetVerdict,
  type QueryRateDecision,
  type QueryRatePolicy,
} from '@lunanexa/domain';
import { requestIdsOf } from './request-ids';

/**
 * Counts a document's tokens and brace nesting with graphql-js's lexer, which
 * is iterative: this never recurses, however deep the document. Stops one
 * token past `maxTokens` (the rest cannot change the verdict). A lexical
 * error ends the count; the parser then reports it as MALFORMED_REQUEST.
 */
export function measureSource(source: string, budget: QueryBudget): LexicalMeasure {
  const lexer = new Lexer(new Source(source));
  let tokens = 0;
  let depth = 0;
  let deepest = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      tokens++;
      if (token.kind === TokenKind.BRACE_L) deepest = Math.max(deepest, ++depth);
      else if (token.kind === TokenKind.BRACE_R) depth--;
      if (tokens > budget.maxTokens) break;
    }
  } catch {
    // Not a lexable document: what was counted stands, and the parser says what is wrong.
  }
  return { tokens, depth: deepest };
}

const NOTHING: OperationMeasure = { depth: 0, aliases: 0, cost: 0, introspectionListNesting: 0 };

/**
 * Measures the operation the request runs (every operation when it names
 * none, or one that does not exist: the larger measure counts). Fragments are
 * measured once and counted at every spread, so a document of nested spreads
 * cannot make this walk exponential; a fragment that spreads itself counts
 * nothing the second time (validation refuses the cycle afterwards).
 */
export function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Readonly<Record<string, unknown>> | undefined,
): OperationMeasure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const measured = new Map<string, OperationMeasure>();
  const inProgress = new Set<string>();

  const fragmentMeasure = (name: string, introspecting: boolean): OperationMeasure => {
    const key = `${introspecting ? 'i' : 'o'}:${name}`;
    const known = measured.get(key);
    if (known) return known;
    const fragment = fragments.get(name);
    if (!fragment || inProgress.has(key)) return NOTHING;
    inProgress.add(key);
    const result = selectionMeasure(
      fragment.selectionSet,
      schema.getType(fragment.typeCondition.name.value),
      introspecting,
    );
    inProgress.delete(key);
    measured.set(key, result);
    return result;
  };

  const selectionMeasure = (
    selectionSet: SelectionSetNode,
    parent: GraphQLNamedType | undefined,
    introspecting: boolean,
  ): OperationMeasure => {
    let total = NOTHING;
    for (const selection of selectionSet.selections) {
      let part: OperationMeasure;
      if (selection.kind === Kind.FRAGMENT_SPREAD)
        part = fragmentMeasure(selection.name.value, introspecting);
      else if (selection.kind === Kind.INLINE_FRAGMENT)
        part = selectionMeasure(
          selection.selectionSet,
          selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent,
          introspecting,
        );
      else {
        const name = selection.name.value;
        const definition =
          parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[name] : undefined;
        const fieldType =
          name === '__schema'
            ? schema.getType('__Schema')
            : name === '__type'
              ? schema.getType('__Type')
              : definition
                ? getNamedType(definition.type)
                : undefined;
        const returnsList = definition ? isListType(getNullableType(definition.type)) : false;
        const alias = selection.alias ? 1 : 0;
        const child = selection.selectionSet
          ? selectionMeasure(selection.selectionSet, fieldType, introspecting || isIntrospectionField(name))
          : NOTHING;
        if (!introspecting && isIntrospectionField(name)) {
          // Introspection reads the schema in memory: a flat price; its shape is bounded by list nesting.
          part = {
            depth: 1,
            aliases: alias + child.aliases,
            cost: INTROSPECTION_COST,
            introspectionListNesting: child.introspectionListNesting,
          };
        } else if (introspecting) {
          part = {
            depth: 0,
            aliases: alias + child.aliases,
            cost: 0,
            introspectionListNesting: child.introspectionListNesting + (returnsList ? 1 : 0),
          };
        } else {
          const args: Record<string, unknown> = {};
          for (const argument of selection.arguments ?? [])
            args[argument.name.value] = valueFromASTUntyped(argument.value, variables ?? undefined);
          const price = priceField({
            parentType: parent?.name ?? '',
            name,
            args,
            returnsList,
            returnsLeaf: fieldType !== undefined && isLeafType(fieldType),
          });
          part = {
            depth: 1 + child.depth,
            aliases: alias + child.aliases,
            cost: costWithSelection(price, child.cost),
            introspectionListNesting: child.introspectionListNesting,
          };
        }
      }
      total = {
        depth: Math.max(total.depth, part.depth),
        aliases: total.aliases + part.aliases,
        cost: total.cost + part.cost,
        introspectionListNesting: Math.max(total.introspectionListNesting, part.introspectionListNesting),
      };
    }
    return total;
  };

  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const chosen = operations.filter((o) => operationName !== undefined && o.name?.value === operationName);
  let result = NOTHING;
  for (const operation of chosen.length > 0 ? chosen : operations) {
    const root = schema.getRootType(operation.operation);
    const measure = selectionMeasure(operation.selectionSet, root ?? undefined, false);
    result = {
      depth: Math.max(result.depth, measure.depth),
      aliases: Math.max(result.aliases, measure.aliases),
      cost: Math.max(result.cost, measure.cost),
      introspectionListNesting: Math.max(result.introspectionListNesting, measure.introspectionListNesting),
    };
  }
  return result;
}

/** Takes an operation's cost from a caller's allowance: RATE_LIMITED with a Retry-After when it cannot pay. */
export interface QueryRateLimit {
  take(caller: string, cost: number): Promise<QueryRateDecision>;
}

/**
 * Per-caller buckets of query cost, in this process's memory. Buckets that
 * have refilled are forgotten once the map is large, so idle callers cost
 * nothing. Several api processes each keeping their own would give a caller
 * spread over N of them N allowances: the api uses SharedQueryRateLimiter
 * (shared-query-rate.ts), and this only while PostgreSQL does not answer.
 */
export class QueryRateLimiter implements QueryRateLimit {
  private readonly buckets = new Map<string, QueryBucket>();

  constructor(
    private readonly policy: QueryRatePolicy,
    private readonly maxTracked = 10_000,
    private readonly nowMs: () => number = Date.now,
  ) {}

  take(caller: string, cost: number): Promise<QueryRateDecision> {
    return Promise.resolve(this.takeNow(caller, cost, this.nowMs()));
  }

  takeNow(caller: string, cost: number, nowMs: number): QueryRateDecision {
    const { bucket, ...decision } = takeQueryCost(this.buckets.get(caller), cost, nowMs, this.policy);
    this.buckets.delete(caller);
    this.buckets.set(caller, bucket);
    if (this.buckets.size > this.maxTracked) this.forgetFull(nowMs);
    return decision;
  }

  private forgetFull(nowMs: number): void {
    for (const [caller, bucket] of this.buckets)
      if (queryBucketIsFull(bucket, nowMs)) this.buckets.delete(caller);
    // Still too many callers in debt at once: the least recently seen ones start over (insertion order).
    for (const caller of this.buckets.keys()) {
      if (this.buckets.size <= this.maxTracked) break;
      this.buckets.delete(caller);
    }
  }
}

/**
 * Whose allowance a request spends: the credential it presents (hashed, so
 * the buckets hold no secrets), else its client address (hashed too). A credential is not
 * checked here; an invalid one is refused by the guard at the first field.
 */
export function queryRateCaller(req: IncomingMessage): string {
  const authorization = req.headers.authorization;
  if (authorization) return `credential:${sha256Hex(authorization)}`;
  return `address:${sha256Hex(req.socket?.remoteAddress ?? 'unknown')}`;
}

const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The refusal a request gets instead of running: status, body and headers. */
export interface QueryBudgetRefusal {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly error: { readonly message: string; readonly extensions: Record<string, unknown> };
}

function tooCostly(verdict: Extract<QueryBudgetVerdict, { allowed: false }>): QueryBudgetRefusal {
  return {
    status: HTTP_STATUS_BY_CODE[ErrorCode.QUERY_TOO_COSTLY],
    headers: {},
    error: {
      message: describeQueryRefusal(verdict),
      extensions: {
        code: ErrorCode.QUERY_TOO_COSTLY,
        limit: verdict.limit,
        measured: verdict.measured,
        max: verdict.max,
      },
    },
  };
}

export interface GraphQLRequestParts {
  readonly query: string;
  readonly operationName: string | undefined;
  readonly variables: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Judges one GraphQL request before Apollo sees it: its tokens and nesting
 * before parsing, its operation's depth, aliases and cost before validation,
 * then takes the cost from the caller's bucket. Returns the refusal, or null
 * to let the request through (a document that does not parse is let through
 * too: Apollo answers it MALFORMED_REQUEST).
 */
export class QueryBudgetGate {
  private readonly measures = new Map<string, OperationMeasure | null>();

  constructor(
    private readonly budget: QueryBudget,
    private readonly limiter: QueryRateLimit,
  ) {}

  async judge(
    schema: GraphQLSchema,
    request: GraphQLRequestParts,
    caller: string,
  ): Promise<QueryBudgetRefusal | null> {
    const key = `${request.operationName ?? ''}\u0000${JSON.stringify(request.variables ?? {})}\u0000${request.query}`;
    let measure = this.measures.get(key);
    if (measure === undefined) {
      const lexical = judgeLexicalMeasure(measureSource(request.query, this.budget), this.budget);
      if (!lexical.allowed) return tooCostly(lexical);
      let document: DocumentNode | null = null;
      try {
        document = parse(request.query, { maxTokens: this.budget.maxTokens + 1 });
      } catch {
        // Apollo parses it again and says what is wrong with it.
      }
      measure = document
        ? measureOperation(schema, document, request.operationName, request.variables)
        : null;
      // Clients repeat the same few documents; a small memo spares parsing them twice per request.
      if (this.measures.size >= 1_000) this.measures.clear();
      this.measures.set(key, measure);
    }
    if (measure === null) return null;
    const verdict = judgeOperation(measure, this.budget);
    if (!verdict.allowed) return tooCostly(verdict);
    const taken = await this.limiter.take(caller, measure.cost);
    if (taken.allowed) return null;
    return {
      status: HTTP_STATUS_BY_CODE[ErrorCode.RATE_LIMITED],
      headers: { 'retry-after': String(taken.retryAfterSeconds) },
      error: {
        message: `This caller has spent its query allowance; try again in ${taken.retryAfterSeconds} s.`,
        extensions: {
          code: ErrorCode.RATE_LIMITED,
          retryAfterSeconds: taken.retryAfterSeconds,
          cost: measure.cost,
        },
      },
    };
  }
}

/** The query, operation name and variables of a GraphQL GET or POST (null when there is no query to judge). */
export function graphQLRequestParts(
  method: string,
  body: unknown,
  query: unknown,
): GraphQLRequestParts | null {
  const source = (method === 'GET' ? query : body) as Record<string, unknown> | null | undefined;
  if (!source || typeof source !== 'object' || Array.isArray(source) || typeof source['query'] !== 'string')
    return null;
  let variables = source['variables'];
  if (typeof variables === 'string') {
    try {
      variables = JSON.parse(variables) as unknown;
    } catch {
      variables = undefined;
    }
  }
  return {
    query: source['query'],
    operationName: typeof source['operationName'] === 'string' ? source['operationName'] : undefined,
    variables:
      variables && typeof variables === 'object' && !Array.isArray(variables)
        ? (variables as Record<string, unknown>)
        : undefined,
  };
}

/** The gate the api's GraphQL endpoint uses (built from the config in AppModule). */
export const QUERY_BUDGET_GATE = Symbol('QUERY_BUDGET_GATE');

/**
 * Runs the gate on `/graphql` after the body is parsed and before Apollo
 * (Apollo's plugins cannot refuse a request before parsing and validating
 * it). A refusal is a GraphQL response with one typed error and the request's
 * ids, as Apollo's own errors are.
 */
@Injectable()
export class QueryBudgetMiddleware implements NestMiddleware {
  constructor(
    private readonly schemaHost: GraphQLSchemaHost,
    @Inject(QUERY_BUDGET_GATE) private readonly gate: QueryBudgetGate,
  ) {}

  use(
    req: IncomingMessage & { body?: unknown; query?: unknown },
    res: ServerResponse,
    next: (error?: unknown) => void,
  ): void {
    const parts = graphQLRequestParts(req.method ?? 'GET', req.body, req.query);
    if (!parts) return next();
    void this.gate
      .judge(this.schemaHost.schema, parts, queryRateCaller(req))
      .then((refusal) => (refusal ? this.refuse(req, res, refusal) : next()), next);
  }

  private refuse(req: IncomingMessage, res: ServerResponse, refusal: QueryBudgetRefusal): void {
    const ids = requestIdsOf(req);
    res.statusCode = refusal.status;
    for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.end(
      JSON.stringify({
        errors: [
          {
            message: refusal.error.message,
            extensions: {
              ...refusal.error.extensions,
              requestId: ids.requestId,
              correlationId: ids.correlationId,
            },
          },
        ],
      }),
    );
  }
}
