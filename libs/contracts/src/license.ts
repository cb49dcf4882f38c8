import { z } from 'zod';
import { DataClassSchema, DigestSchema, IsoTimestampSchema, OpaqueIdSchema } from './common';
import { LicenseApprovalStateSchema } from './lifecycle';
import { ArtifactUriSchema } from './artifact';

/**
 * The license a model version is used under, and LunaNexa's review of it.
 * Rollout refuses a version whose license is not Approved
 * (LICENSE_NOT_APPROVED); the gateway refuses a workload whose data class the
 * license does not allow (DATA_CLASS_NOT_ALLOWED).
 */

export const LicenseApprovalSchema = z
  .object({
    state: LicenseApprovalStateSchema,
    /** Opaque id of the reviewer; null while PendingReview. */
    decidedBy: OpaqueIdSchema.nullable(),
    decidedAt: IsoTimestampSchema.nullable(),
    note: z.string().min(1).max(2048).optional(),
  })
  .strict()
  .superRefine((approval, ctx) => {
    const decided = approval.state !== 'PendingReview';
    if (decided !== (approval.decidedBy !== null)) {
      ctx.addIssue({
        code: 'custom',
        path: ['decidedBy'],
        message: 'is set exactly when the license has been decided',
      });
    }
    if (decided !== (approval.decidedAt !== null)) {
      ctx.addIssue({
        code: 'custom',
        path: ['decidedAt'],
        message: 'is set exactly when the license has been decided',
      });
    }
  });
export type LicenseApproval = z.infer<typeof LicenseApprovalSchema>;

const licenseTerms = {
  /** May outputs be used commercially? Reviewed, not inferred from the SPDX id. */
  commercialUse: z.boolean(),
  allowedDataClasses: z
    .array(DataClassSchema)
    .min(1)
    .refine((classes) => new Set(classes).size === classes.length, {
      message: 'must not contain duplicates',
    }),
  /** Attribution text the license requires to be shown; null if none. */
  attribution: z.string().min(1).max(4096).nullable(),
  approval: LicenseApprovalSchema,
};

/** SPDX license expression id such as `Apache-2.0`, `MIT` or `LicenseRef-llama3.1`. */
export const SpdxIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9.+-]{0,127}$/, 'must be an SPDX license id');

export const SpdxLicenseSchema = z
  .object({
    kind: z.literal('spdx'),
    spdxId: SpdxIdSchema,
    ...licenseTerms,
  })
  .strict();

/** Custom terms (community licenses, contracts): pinned by the digest of the terms document. */
export const CustomLicenseSchema = z
  .object({
    kind: z.literal('custom'),
    name: z.string().min(1).max(256),
    termsUri: ArtifactUriSchema,
    termsDigest: DigestSchema,
    ...licenseTerms,
  })
  .strict();

export const LicenseSchema = z.discriminatedUnion('kind', [SpdxLicenseSchema, CustomLicenseSchema]);
export type License = z.infer<typeof LicenseSchema>;
