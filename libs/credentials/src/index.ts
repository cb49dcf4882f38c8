export * from './bearer';
export * from './session-token';
export * from './artifact-signature';
