import { Module } from '@nestjs/common';
import { TenancyResolver } from './tenancy.resolver';
import { TenancyService } from './tenancy.service';

/** Tenants, their quotas and their gateway keys: what the gateway checks callers against. */
@Module({
  providers: [TenancyService, TenancyResolver],
})
export class TenancyModule {}
