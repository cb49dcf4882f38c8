// What other features use of auth: permission decorators, the audit writer, the caller's principal, the controller key.
export { Public, RequirePermission, Roles } from './decorators';
export { AuditWriter, Denied, type AuditContext, type Evidence } from './audit-writer';
export { CONTROLLER_KEY } from './auth.constants';
export type { ControllerKey, ControllerKeyRing, HeldRingKey } from './controller-key';
export { principalOf, requirePrincipal, type Principal } from './principal';
