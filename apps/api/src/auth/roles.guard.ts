import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { GqlExecutionContext, type GqlContextType } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { ErrorCode, LunaNexaError, type Permission, type Role } from '@lunanexa/contracts';
import type { Logger, RequestIds } from '@lunanexa/observability';
import type { GraphQLContext } from '../common/graphql-context';
import { requestIdsOf } from '../common/request-ids';
import { API_LOGGER } from '../config';
import { AuditWriter } from './audit-writer';
import { AuthService } from './auth.service';
import { PERMISSION_KEY, PUBLIC_KEY, ROLES_KEY } from './decorators';
import { attachPrincipal, type Principal } from './principal';

interface Target {
  readonly req: IncomingMessage;
  readonly ids: RequestIds;
  /** `Mutation.createOperator` or `GET /metrics`: what the audit event says was attempted. */
  readonly operation: string;
  readonly authenticated: (principal: Principal) => void;
}

/**
 * Deny by default (registered as APP_GUARD): every resolver and every REST
 * route is refused unless it is marked `@Public()` or names the roles that
 * may call it (`@Roles` / `@RequirePermission`). A handler with neither is
 * refused for everyone, admins included, and logged as a wiring bug.
 *
 * Missing, malformed, unknown, revoked or forged credentials and disabled
 * accounts answer UNAUTHENTICATED; an expired session or API token answers
 * TOKEN_EXPIRED; an authenticated caller without the role answers FORBIDDEN.
 * Every refusal is an audit event (`auth.authorize`, decision `denied`,
 * result `refused`) on the hash chain.
 */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly audit: AuditWriter,
    @Inject(API_LOGGER) private readonly logger: Logger,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const handlers = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean | undefined>(PUBLIC_KEY, handlers)) return true;
    const roles = this.reflector.getAllAndOverride<readonly Role[] | undefined>(ROLES_KEY, handlers);
    const permission = this.reflector.getAllAndOverride<Permission | undefined>(PERMISSION_KEY, handlers);
    const target = this.target(context);
    const required = { requiredRoles: roles ?? [], ...(permission ? { permission } : {}) };

    const authentication = await this.auth.authenticate(target.req);
    if (!authentication.ok) {
      await this.refuse(target, 'anonymous', {
        ...required,
        ...authentication.evidence,
        reason: authentication.reason,
        errorCode: authentication.code,
      });
      throw new LunaNexaError(
        authentication.code,
        authentication.code === ErrorCode.TOKEN_EXPIRED
          ? 'credential expired: log in again or use a current API token'
          : 'authentication required: send Authorization: Bearer <session token or API token>',
      );
    }
    const { principal } = authentication;
    if (!roles) {
      this.logger.error(
        { operation: target.operation },
        'handler declares neither @Public nor @Roles: refused',
      );
    }
    if (!roles?.includes(principal.role)) {
      await this.refuse(target, principal.actor, {
        ...required,
        role: principal.role,
        operatorId: principal.operatorId,
        ...(principal.tokenId ? { tokenId: principal.tokenId } : {}),
        reason: roles ? 'role-not-allowed' : 'no-roles-declared',
        errorCode: ErrorCode.FORBIDDEN,
      });
      throw new LunaNexaError(
        ErrorCode.FORBIDDEN,
        roles
          ? `role ${principal.role} may not call ${target.operation} (allowed: ${roles.join(', ')})`
          : `${target.operation} is not open to any role`,
      );
    }
    target.authenticated(principal);
    return true;
  }

  private target(context: ExecutionContext): Target {
    if (context.getType<GqlContextType>() === 'graphql') {
      const gql = GqlExecutionContext.create(context);
      const ctx = gql.getContext<GraphQLContext>();
      const info = gql.getInfo<GraphQLResolveInfo>();
      return {
        req: ctx.req,
        ids: ctx.ids,
        operation: `${info.parentType.name}.${info.fieldName}`,
        authenticated: (principal) => {
          ctx.principal = principal;
          ctx.actor = principal.actor;
        },
      };
    }
    const req = context.switchToHttp().getRequest<IncomingMessage>();
    return {
      req,
      ids: requestIdsOf(req),
      operation: `${req.method ?? 'GET'} ${((req.url ?? '/').split('?')[0] ?? '/').slice(0, 256)}`,
      authenticated: (principal) => attachPrincipal(req, principal),
    };
  }

  private refuse(target: Target, actor: string, evidence: Record<string, unknown>): Promise<void> {
    return this.audit.refusal(
      { actor, action: 'auth.authorize', ids: target.ids },
      { operation: target.operation, ...evidence },
    );
  }
}
