import { Module } from '@nestjs/common';
import { SigningResolver } from './signing.resolver';
import { SigningService } from './signing.service';

/** Trusted artifact-signing keys and the tenants' unsigned-version policy. */
@Module({
  providers: [SigningService, SigningResolver],
})
export class SigningModule {}
