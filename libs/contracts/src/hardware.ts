import { z } from 'zod';
import { ArchitectureSchema, ByteCountSchema } from './common';
import { GpuMemoryModelSchema } from './node';

/**
 * A compatible-hardware declaration. Runtimes declare what they can run on;
 * model versions declare what one replica needs. Placement checks both
 * against node inventory and explains every node it filters out.
 */

export const COMPUTE_CAPABILITY_PATTERN = /^\d{1,2}\.\d{1,2}$/;

/** Numeric comparison of "major.minor" strings ("12.1" > "9.0", which string order gets wrong). */
export function compareComputeCapability(a: string, b: string): number {
  const [aMajor = 0, aMinor = 0] = a.split('.').map(Number);
  const [bMajor = 0, bMinor = 0] = b.split('.').map(Number);
  return aMajor !== bMajor ? aMajor - bMajor : aMinor - bMinor;
}

const uniqueArray = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .min(1)
    .refine((values) => new Set(values).size === values.length, { message: 'must not contain duplicates' });

export const CompatibleHardwareSchema = z
  .object({
    architectures: uniqueArray(ArchitectureSchema),
    memoryModels: uniqueArray(GpuMemoryModelSchema),
    minComputeCapability: z.string().regex(COMPUTE_CAPABILITY_PATTERN),
    /**
     * Upper bound, because binaries built for one major (e.g. datacenter
     * Blackwell sm_100) do not run on another (GB10 is sm_121) unless they
     * ship PTX. Null: no known upper bound.
     */
    maxComputeCapability: z.string().regex(COMPUTE_CAPABILITY_PATTERN).nullable(),
    /** Lowest CUDA version (driver-supported, "major.minor") required; null if no CUDA dependency (the fake runtime). */
    minCudaVersion: z
      .string()
      .regex(/^\d{1,2}\.\d{1,2}$/)
      .nullable(),
    /** GPUs one replica occupies on one node. Multi-node replicas are not part of v1. */
    gpusPerReplica: z.int().min(0).max(64),
    /**
     * Memory one replica needs (weights + KV cache + runtime overhead). On
     * unified-memory nodes this is checked against system memory minus the
     * headroom policy; on discrete nodes against per-GPU memory. Null: the
     * declaration does not constrain memory (runtimes usually).
     */
    minMemoryBytesPerReplica: ByteCountSchema.nullable(),
  })
  .strict()
  .superRefine((hardware, ctx) => {
    if (
      hardware.maxComputeCapability !== null &&
      compareComputeCapability(hardware.minComputeCapability, hardware.maxComputeCapability) > 0
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['maxComputeCapability'],
        message: 'must not be below minComputeCapability',
      });
    }
  });
export type CompatibleHardware = z.infer<typeof CompatibleHardwareSchema>;
