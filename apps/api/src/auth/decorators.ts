import { applyDecorators, SetMetadata } from '@nestjs/common';
import { rolesWithPermission, type Permission, type Role } from '@lunanexa/contracts';

export const PUBLIC_KEY = 'lunanexa:public';
export const ROLES_KEY = 'lunanexa:roles';
export const PERMISSION_KEY = 'lunanexa:permission';

/**
 * Reachable without credentials. Every resolver and route is refused by the
 * global roles guard unless it carries this or `@Roles`/`@RequirePermission`.
 */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_KEY, true);

/** Only callers whose (effective) role is one of `roles`. */
export const Roles = (...roles: Role[]): MethodDecorator & ClassDecorator => SetMetadata(ROLES_KEY, roles);

/**
 * Only roles holding `permission` in the shared table (libs/contracts
 * roles.ts), so the API enforces exactly what the console and CLI display.
 */
export const RequirePermission = (permission: Permission): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(PERMISSION_KEY, permission), Roles(...rolesWithPermission(permission)));
