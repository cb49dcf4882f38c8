export * from './bearer';
export * from './session-token';
