import { z } from 'zod';
import { ERROR_CODES } from './errors';

/**
 * Runtime schemas for the error vocabulary declared in errors.ts, so clients
 * (the CLI, the SDK, tests) can validate a problem+json body they received.
 */
export const ErrorCodeSchema = z.enum(ERROR_CODES);

export const FieldViolationSchema = z
  .object({
    path: z.string(),
    message: z.string().min(1),
  })
  .strict();

/**
 * The OpenAI-style `error` member that the OpenAI-compatible endpoints add to
 * their problem bodies, so OpenAI SDKs (which read `error.message`) show
 * something useful. `code` is the LunaNexa error code in lower case.
 */
export const OPENAI_ERROR_TYPES = [
  'invalid_request_error',
  'not_found_error',
  'rate_limit_error',
  'server_error',
] as const;
export const OpenAiErrorSchema = z
  .object({
    message: z.string().min(1),
    type: z.enum(OPENAI_ERROR_TYPES),
    code: z.string().regex(/^[a-z_]+$/),
    /** The offending request field for validation errors, as OpenAI reports it; null otherwise. */
    param: z.string().nullable(),
  })
  .strict();
export type OpenAiError = z.infer<typeof OpenAiErrorSchema>;

/** One dependency probe of a readiness check (PostgreSQL, Temporal, …). */
export const DependencyCheckSchema = z
  .object({
    name: z.string().min(1),
    status: z.enum(['ok', 'failing']),
    detail: z.string().nullable(),
    latencyMs: z.number().nonnegative().nullable(),
  })
  .strict();
export type DependencyCheckBody = z.infer<typeof DependencyCheckSchema>;

/** RFC 9457 body exactly as LunaNexa emits it (the `error` member only on OpenAI-compatible paths). */
export const ProblemDetailsSchema = z
  .object({
    type: z.string().regex(/^urn:lunanexa:error:[a-z-]+$/),
    title: z.string().min(1),
    status: z.int().min(400).max(599),
    code: ErrorCodeSchema,
    detail: z.string().optional(),
    instance: z.string().optional(),
    requestId: z.string().optional(),
    correlationId: z.string().optional(),
    violations: z.array(FieldViolationSchema).optional(),
    error: OpenAiErrorSchema.optional(),
    /** Readiness failures (`/ready` 503) list every dependency check, failing or not. */
    checks: z.array(DependencyCheckSchema).optional(),
  })
  .strict();
export type ProblemDetailsBody = z.infer<typeof ProblemDetailsSchema>;
