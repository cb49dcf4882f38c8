export { pingWorkflow } from './ping';
