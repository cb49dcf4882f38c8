import { Module } from '@nestjs/common';
import { EvidenceController } from './evidence.controller';
import { EvidenceService } from './evidence.service';

/** Evidence bundles: one signed, offline-verifiable archive per alias revision. */
@Module({
  controllers: [EvidenceController],
  providers: [EvidenceService],
})
export class EvidenceModule {}
