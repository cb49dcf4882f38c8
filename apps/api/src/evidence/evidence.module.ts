import { Module } from '@nestjs/common';
import { BenchmarksModule } from '../benchmarks';
import { EvidenceController } from './evidence.controller';
import { EvidenceService } from './evidence.service';

/** Evidence bundles: one signed, offline-verifiable archive per alias revision. */
@Module({
  imports: [BenchmarksModule],
  controllers: [EvidenceController],
  providers: [EvidenceService],
})
export class EvidenceModule {}
