import { type Permission, ROLE_PERMISSIONS, type Role } from '@lunanexa/contracts/roles';

/** The session's `can` for a signed-in role, as the console's Session answers it. */
export const canAs =
  (role: Role) =>
  (permission: Permission): boolean =>
    ROLE_PERMISSIONS[role].includes(permission);
