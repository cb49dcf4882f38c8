// The agent channel's public surface: how bootstrap tokens are hashed and enroll workflows named.
export { enrollWorkflowId, hashBootstrapToken } from './agent-channel.service';
