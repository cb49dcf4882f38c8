// What other features share of evaluations: the percentile triple benchmark runs report too.
export { LatencyPercentiles } from './evaluation.types';
