export * from './client';
export * from './node';
export { CONTROLLER_SSH_USERNAME } from './ssh-exchange';
