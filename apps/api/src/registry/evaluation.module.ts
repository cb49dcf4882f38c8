import { Module } from '@nestjs/common';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import { EvaluationResolver } from './evaluation.resolver';
import { EvaluationService } from './evaluation.service';

/** Evaluation suites, benchmark profiles, evaluation runs and benchmark comparisons. */
@Module({
  providers: [WorkflowRunner, EvaluationService, EvaluationResolver],
})
export class EvaluationModule {}
