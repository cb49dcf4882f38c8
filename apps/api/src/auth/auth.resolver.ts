import { Args, Context, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import type { OperatorEntity } from '@lunanexa/persistence';
import type { GraphQLContext } from '../common/graphql-context';
import { AuthService, type LoginOutcome } from './auth.service';
import { Public, RequirePermission } from './decorators';
import { ApiToken, CreateApiTokenInput, CreateApiTokenResult } from './dto/api-token.types';
import { LoginInput, LoginResult } from './dto/login.types';
import {
  ChangePasswordInput,
  CreateOperatorInput,
  Me,
  Operator,
  ResetOperatorPasswordInput,
  SetOperatorRoleInput,
} from './dto/operator.types';
import { IdentityService, type ApiTokenView } from './identity.service';
import { requirePrincipal } from './principal';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidArg(name: string, value: string): string {
  if (!UUID.test(value)) {
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `${name} must be a UUID`, [
      { path: name, message: 'must be a UUID' },
    ]);
  }
  return value.toLowerCase();
}

function toOperator(row: OperatorEntity): Operator {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    disabledAt: row.disabledAt,
    createdAt: row.createdAt,
  };
}

function toApiToken(row: ApiTokenView): ApiToken {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    role: row.role,
    ownerId: row.operatorId,
    ownerUsername: row.ownerUsername,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    lastUsedAt: row.lastUsedAt,
  };
}

/**
 * Operator identity: login/logout, the caller, operator accounts and API
 * tokens. Who may call what is the shared table in libs/contracts roles.ts.
 */
@Resolver()
export class AuthResolver {
  constructor(
    private readonly auth: AuthService,
    private readonly identity: IdentityService,
  ) {}

  @Public()
  @Mutation(() => LoginResult, {
    description:
      'Exchanges username and password for a 15-minute session token. Unknown user, wrong password and ' +
      'disabled account all answer UNAUTHENTICATED. Repeated failures for one account or from one address ' +
      'answer RATE_LIMITED until the block ends (it doubles per further failure, at most 15 minutes by default).',
  })
  async login(@Args('input') input: LoginInput, @Context() ctx: GraphQLContext): Promise<LoginResult> {
    return toLoginResult(
      await this.auth.login(
        input.username,
        input.password,
        ctx.ids,
        ctx.req.socket.remoteAddress ?? 'unknown',
      ),
    );
  }

  @RequirePermission('session')
  @Mutation(() => Boolean, {
    description: "Ends every session of the caller's account (session tokens only; API tokens are revoked).",
  })
  async logout(@Context() ctx: GraphQLContext): Promise<boolean> {
    await this.auth.logout(requirePrincipal(ctx.principal), ctx.ids);
    return true;
  }

  @RequirePermission('session')
  @Query(() => Me, { description: 'The caller: account, effective role and credential.' })
  async me(@Context() ctx: GraphQLContext): Promise<Me> {
    const principal = requirePrincipal(ctx.principal);
    const row = await this.identity.findOperator(principal.operatorId);
    if (!row) throw new LunaNexaError(ErrorCode.UNAUTHENTICATED, 'account no longer exists');
    return {
      operator: toOperator(row),
      role: principal.role,
      credential: principal.credential,
      tokenPrefix: principal.tokenPrefix,
      expiresAt: principal.expiresAt,
    };
  }

  @RequirePermission('administer')
  @Query(() => [Operator], { description: 'Every operator account, by username.' })
  async operators(): Promise<Operator[]> {
    return (await this.identity.listOperators()).map(toOperator);
  }

  @RequirePermission('administer')
  @Mutation(() => Operator, { description: 'Creates an operator account.' })
  async createOperator(
    @Args('input') input: CreateOperatorInput,
    @Context() ctx: GraphQLContext,
  ): Promise<Operator> {
    const principal = requirePrincipal(ctx.principal);
    return toOperator(await this.identity.createOperator(principal, input, ctx.ids));
  }

  @RequirePermission('administer')
  @Mutation(() => Operator, {
    description:
      "Changes an operator's role and ends their sessions. The last enabled admin cannot be demoted.",
  })
  async setOperatorRole(
    @Args('input') input: SetOperatorRoleInput,
    @Context() ctx: GraphQLContext,
  ): Promise<Operator> {
    const principal = requirePrincipal(ctx.principal);
    return toOperator(
      await this.identity.setOperatorRole(principal, input.operatorId.toLowerCase(), input.role, ctx.ids),
    );
  }

  @RequirePermission('administer')
  @Mutation(() => Operator, {
    description:
      'Disables an operator: no login, and their sessions and API tokens stop working. ' +
      'The last enabled admin cannot be disabled.',
  })
  async disableOperator(
    @Args('id', { type: () => ID }) id: string,
    @Context() ctx: GraphQLContext,
  ): Promise<Operator> {
    const principal = requirePrincipal(ctx.principal);
    return toOperator(await this.identity.disableOperator(principal, uuidArg('id', id), ctx.ids));
  }

  @RequirePermission('session')
  @Mutation(() => LoginResult, {
    description:
      'Changes your own password (the current one is required; a wrong one counts as a failed sign-in). ' +
      'Every session of yours ends; the answer is a fresh session.',
  })
  async changePassword(
    @Args('input') input: ChangePasswordInput,
    @Context() ctx: GraphQLContext,
  ): Promise<LoginResult> {
    return toLoginResult(
      await this.auth.changePassword(
        requirePrincipal(ctx.principal),
        input.currentPassword,
        input.newPassword,
        ctx.ids,
        ctx.req.socket.remoteAddress ?? 'unknown',
      ),
    );
  }

  @RequirePermission('administer')
  @Mutation(() => Operator, {
    description: "Sets another operator's password (tell it to them out of band); their sessions end.",
  })
  async resetOperatorPassword(
    @Args('input') input: ResetOperatorPasswordInput,
    @Context() ctx: GraphQLContext,
  ): Promise<Operator> {
    const principal = requirePrincipal(ctx.principal);
    return toOperator(
      await this.identity.resetOperatorPassword(
        principal,
        uuidArg('operatorId', input.operatorId),
        input.newPassword,
        ctx.ids,
      ),
    );
  }

  @RequirePermission('administer')
  @Mutation(() => Operator, {
    description: 'Ends every session of an operator (their password and API tokens are unchanged).',
  })
  async endOperatorSessions(
    @Args('id', { type: () => ID }) id: string,
    @Context() ctx: GraphQLContext,
  ): Promise<Operator> {
    const principal = requirePrincipal(ctx.principal);
    return toOperator(await this.identity.endOperatorSessions(principal, uuidArg('id', id), ctx.ids));
  }

  @RequirePermission('administer')
  @Query(() => [ApiToken], { description: 'Every API token (never the secret), newest first.' })
  async apiTokens(): Promise<ApiToken[]> {
    return (await this.identity.listApiTokens()).map(toApiToken);
  }

  @RequirePermission('administer')
  @Mutation(() => CreateApiTokenResult, {
    description: 'Issues an API token owned by the caller. The token is in this answer only.',
  })
  async createApiToken(
    @Args('input') input: CreateApiTokenInput,
    @Context() ctx: GraphQLContext,
  ): Promise<CreateApiTokenResult> {
    const principal = requirePrincipal(ctx.principal);
    const created = await this.identity.createApiToken(
      principal,
      { name: input.name, role: input.role ?? null, expiresInDays: input.expiresInDays ?? null },
      ctx.ids,
    );
    return { token: created.token, apiToken: toApiToken(created.apiToken) };
  }

  @RequirePermission('administer')
  @Mutation(() => ApiToken, { description: 'Revokes an API token; it is refused from its next request on.' })
  async revokeApiToken(
    @Args('id', { type: () => ID }) id: string,
    @Context() ctx: GraphQLContext,
  ): Promise<ApiToken> {
    const principal = requirePrincipal(ctx.principal);
    return toApiToken(await this.identity.revokeApiToken(principal, uuidArg('id', id), ctx.ids));
  }
}

function toLoginResult(outcome: LoginOutcome): LoginResult {
  return {
    accessToken: outcome.accessToken,
    expiresAt: outcome.expiresAt,
    operator: toOperator(outcome.operator),
  };
}
