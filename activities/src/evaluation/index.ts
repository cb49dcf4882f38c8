import { createEvaluationBeginActivities } from './begin';
import { createEvaluationMeasureActivities } from './measure';
import { createEvaluationRecordActivities } from './record';
import type { EvaluationActivityPorts } from './support';

export type { BeginEvaluationResult } from './begin';
export type { EvaluationActivityPorts, EvaluationStepInput } from './support';

/** Every step of the evaluate workflow: begin, measure (suite, benchmark), record. */
export function createEvaluationActivities(ports: EvaluationActivityPorts) {
  return {
    ...createEvaluationBeginActivities(ports),
    ...createEvaluationMeasureActivities(ports),
    ...createEvaluationRecordActivities(ports),
  };
}
