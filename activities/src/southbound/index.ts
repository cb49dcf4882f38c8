export * from './client';
export * from './node';
// exchangeEnvelope sends an envelope exactly as given: tests use it to present crafted (forged, stale) messages.
export {
  CONTROLLER_SSH_USERNAME,
  ControllerKeyRefusedError,
  exchangeEnvelope,
  type ExchangeOptions,
} from './ssh-exchange';
