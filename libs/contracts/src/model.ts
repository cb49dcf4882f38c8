import { z } from 'zod';
import { IsoTimestampSchema, NameSchema, OpaqueIdSchema } from './common';
import { ArtifactSchema } from './artifact';
import { CompatibleHardwareSchema } from './hardware';
import { LicenseSchema } from './license';
import { ModelVersionStateSchema } from './lifecycle';

/**
 * Registry records. A model is a name operators recognise; a model version is
 * one immutable, digest-pinned artifact under one license. Versions never
 * change in place — a new artifact is a new version.
 */

export const ModelSchema = z
  .object({
    id: OpaqueIdSchema,
    name: NameSchema,
    displayName: z.string().min(1).max(256),
    description: z.string().max(4096).nullable(),
    createdAt: IsoTimestampSchema,
    updatedAt: IsoTimestampSchema,
  })
  .strict();
export type Model = z.infer<typeof ModelSchema>;

/** Version label: operator-chosen, unique per model, e.g. a date or upstream revision. */
export const VersionLabelSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 of [A-Za-z0-9._-]');

export const EvaluationSummarySchema = z
  .object({
    /** Opaque id of the evaluation run (its workflow id is on the receipt). */
    runId: OpaqueIdSchema,
    suite: NameSchema,
    passed: z.boolean(),
    /** Suite-defined scores, e.g. { accuracy: 0.71, p95LatencyMs: 840 }. */
    scores: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/), z.number()),
    evaluatedAt: IsoTimestampSchema,
  })
  .strict();
export type EvaluationSummary = z.infer<typeof EvaluationSummarySchema>;

export const ModelVersionSchema = z
  .object({
    id: OpaqueIdSchema,
    /** Name of the model this version belongs to; `${model}@${version}` is its ModelVersionRef. */
    model: NameSchema,
    version: VersionLabelSchema,
    state: ModelVersionStateSchema,
    artifact: ArtifactSchema,
    license: LicenseSchema,
    /** What one replica of this version needs. */
    requirements: CompatibleHardwareSchema,
    /** Runtimes this version has been declared to work with (ids in the runtime registry). */
    runtimeIds: z.array(OpaqueIdSchema).min(1),
    contextLength: z.int().positive().nullable(),
    parameterCount: z.int().positive().nullable(),
    /** Latest evaluation; null until one ran. A failed one blocks deployment. */
    evaluation: EvaluationSummarySchema.nullable(),
    createdAt: IsoTimestampSchema,
    updatedAt: IsoTimestampSchema,
  })
  .strict();
export type ModelVersion = z.infer<typeof ModelVersionSchema>;
