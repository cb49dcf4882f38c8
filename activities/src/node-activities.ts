// Kept while rollout, evaluation and artifact activities import Receipt from here; it lives in fleet-support.
export type { Receipt } from './fleet-support';
