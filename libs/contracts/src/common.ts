import { z } from 'zod';
import { OPAQUE_ID_PATTERN } from './correlation';

/**
 * Field shapes every v1 contract reuses. Keeping them in one place means a
 * timestamp, digest or id is validated the same way on the API, the gateway,
 * the agent and in workflows.
 */

/** The contract generation this library describes; see docs/CONTRACTS.md. */
export const CONTRACTS_VERSION = 'v1';
export type ContractsVersion = typeof CONTRACTS_VERSION;

/** The `apiVersion` value on generic data-plane documents. */
export const API_VERSION = 'lunanexa.v1';

/**
 * UTC instants only (`Z`, optional fraction). Offsets are refused so two
 * timestamps compare correctly as strings and canonical JSON is stable.
 */
export const IsoTimestampSchema = z.iso.datetime({ error: 'must be an ISO-8601 UTC timestamp ending in Z' });

/** Content address of an artifact or image: always sha256, lower-case hex. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
export const DigestSchema = z.string().regex(DIGEST_PATTERN, 'must be sha256:<64 lower-case hex digits>');
export type Digest = z.infer<typeof DigestSchema>;

/**
 * Server-assigned or caller-supplied opaque identifier. Same shape as the
 * request/correlation ids so they can travel in headers and search attributes.
 */
export const OpaqueIdSchema = z
  .string()
  .regex(OPAQUE_ID_PATTERN, 'must be an opaque id: [A-Za-z0-9][A-Za-z0-9._:-]{0,127}');

/**
 * Operator-chosen names (nodes, models, aliases, runtimes): a DNS label, so
 * they are safe in URLs, metric labels, hostnames and file names.
 */
export const NAME_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
export const NameSchema = z
  .string()
  .regex(NAME_PATTERN, 'must be a lower-case DNS label (a-z, 0-9, -; at most 63)');

/** Desired-state generation: increases by one on every change of intent. */
export const GenerationSchema = z.int().nonnegative();

/** Byte counts; `z.int()` keeps them inside the safe-integer range (8 PiB). */
export const ByteCountSchema = z.int().nonnegative();

/** Semantic-ish version strings of software we run or ship (agent, runtime, driver). */
export const VersionStringSchema = z
  .string()
  .regex(/^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/, 'must be a version string such as 1.2.3 or 580.95.05');

/** Free text shown to operators; bounded so a record cannot carry a payload. */
export const ShortTextSchema = z.string().min(1).max(1024);

/** CPU architectures LunaNexa schedules for (Go/OCI names, not uname names). */
export const ARCHITECTURES = ['arm64', 'amd64'] as const;
export const ArchitectureSchema = z.enum(ARCHITECTURES);
export type Architecture = z.infer<typeof ArchitectureSchema>;

/**
 * How sensitive the data a workload carries is. Licenses list the classes a
 * model may process; the gateway refuses a workload whose class is not allowed.
 * Ordered from least to most sensitive.
 */
export const DATA_CLASSES = ['public', 'internal', 'confidential', 'restricted'] as const;
export const DataClassSchema = z.enum(DATA_CLASSES);
export type DataClass = z.infer<typeof DataClassSchema>;
