import { z } from 'zod';

/**
 * Token accounting for one workload. Quotas and usage reports add these up,
 * so the totals must be internally consistent rather than trusted.
 */
export const UsageSchema = z
  .object({
    promptTokens: z.int().nonnegative(),
    completionTokens: z.int().nonnegative(),
    totalTokens: z.int().nonnegative(),
  })
  .strict()
  .refine((usage) => usage.totalTokens === usage.promptTokens + usage.completionTokens, {
    path: ['totalTokens'],
    message: 'must equal promptTokens + completionTokens',
  });
export type Usage = z.infer<typeof UsageSchema>;
