import { z } from 'zod';
import { PERMISSIONS, ROLES, USERNAME_PATTERN } from './roles';

/** Runtime schemas for the role vocabulary in roles.ts (kept apart so roles.ts stays zod-free). */
export const RoleSchema = z.enum(ROLES);
export const PermissionSchema = z.enum(PERMISSIONS);

/** Operator usernames: stored lower-case; unique regardless of the case they were typed in. */
export const UsernameSchema = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.string().regex(USERNAME_PATTERN, 'must be 2-64 of a-z 0-9 . _ -, starting with a letter'));
