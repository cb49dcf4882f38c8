import { Inject } from '@nestjs/common';
import { Args, Context, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { RequirePermission } from '../auth';
import type { GraphQLContext } from '../common/graphql-context';
import { API_CONFIG, gatewayUrl, type ApiConfig } from '../config';
import { PingService } from './ping.service';
import { PingInput, PingRecord, PingResult } from './system.types';

const MAX_RECENT = 100;

@Resolver()
export class SystemResolver {
  constructor(
    private readonly pings: PingService,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  @RequirePermission('read')
  @Query(() => String, {
    description:
      "The gateway's base URL as this API reaches it (LUNANEXA_GATEWAY_URL, else the local gateway port); its OpenAI-compatible API is under /v1.",
  })
  gatewayEndpoint(): string {
    return gatewayUrl(this.config);
  }

  @RequirePermission('operate')
  @Mutation(() => PingResult, {
    description:
      'Runs the ping system check as a Temporal workflow: one PostgreSQL row and one audit receipt.',
  })
  ping(@Args('input') input: PingInput, @Context() ctx: GraphQLContext): Promise<PingResult> {
    return this.pings.ping(input.idempotencyKey, input.message ?? 'ping', ctx.actor, ctx.ids);
  }

  @RequirePermission('read')
  @Query(() => [PingRecord], { description: 'The most recent ping system checks, newest first.' })
  recentPings(@Args('limit', { type: () => Int, defaultValue: 10 }) limit: number): Promise<PingRecord[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECENT) {
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `limit must be between 1 and ${MAX_RECENT}`, [
        { path: 'limit', message: `must be between 1 and ${MAX_RECENT}` },
      ]);
    }
    return this.pings.recent(limit);
  }
}
