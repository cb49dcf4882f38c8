import { Module } from '@nestjs/common';
import { PrivacyResolver } from './privacy.resolver';
import { PrivacyService } from './privacy.service';

/** Payload privacy: tenant data policies, payload capture listings and purges. */
@Module({
  providers: [PrivacyService, PrivacyResolver],
})
export class PrivacyModule {}
