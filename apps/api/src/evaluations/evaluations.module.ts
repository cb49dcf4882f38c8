import { Module } from '@nestjs/common';
import { EvaluationResolver } from './evaluation.resolver';
import { EvaluationService } from './evaluation.service';

/** Evaluation suites, benchmark profiles, evaluation runs and benchmark comparisons. */
@Module({
  providers: [EvaluationService, EvaluationResolver],
})
export class EvaluationsModule {}
