/** Injection token of the controller's Ed25519 key (`ControllerKey`). */
export const CONTROLLER_KEY = Symbol('CONTROLLER_KEY');
