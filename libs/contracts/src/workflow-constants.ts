/**
 * What workflow code may import from the contracts at run time: signal and
 * query names, error codes. Nothing here (or in what it imports) builds a zod
 * schema. The Temporal sandbox evaluates a workflow's imports for every
 * workflow it starts or replays; importing the contracts' index made each one
 * build every schema of the API (half the workflow thread's time at 300
 * agents enrolling). Types may still come from '@lunanexa/contracts'
 * (`import type` is erased); workflows/test/bundle.spec.ts keeps zod out of
 * the bundle.
 */
export { ErrorCode, typedFailureCode } from './errors';
export {
  CONTROLLER_KEY_ROTATION_QUERIES,
  DEPLOYMENT_QUERIES,
  DEPLOYMENT_SIGNALS,
  DEPLOYMENT_UPDATES,
  ENROLL_NODE_QUERIES,
  ENROLL_NODE_SIGNALS,
  ENROLL_NODE_UPDATES,
  EVALUATION_UPDATES,
  ROLLOUT_QUERIES,
  ROLLOUT_SIGNALS,
  ROLLOUT_UPDATES,
} from './fleet-workflows';
export { RECONCILE_DRY_RUN_OUTCOME } from './reconcile';
