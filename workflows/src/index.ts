export { pingWorkflow } from './ping';
export { enrollNodeWorkflow } from './enroll-node';
export { rotateNodeCredentialWorkflow } from './rotate-node-credential';
export { drainNodeWorkflow } from './drain-node';
export { deploymentWorkflow } from './deployment';
