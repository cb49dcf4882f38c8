// A node lists its replicas in the same shape as a deployment does.
export { Assignment } from './deployments.types';
export { assignmentView } from './views';
