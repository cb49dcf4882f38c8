// The controller key is shared by the API (sessions, enrollment answers) and the worker (assignments, credentials).
export {
  ControllerKeyError,
  keyFingerprint,
  loadOrCreateControllerKey,
  rawEd25519PublicKey,
  type ControllerKey,
} from '@lunanexa/persistence';
export { ControllerKeyRing, watchControllerKeyRing, type HeldRingKey } from '@lunanexa/persistence';
