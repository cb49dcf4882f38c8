import { join } from 'node:path';

export * from './config';
export * from './faults';
export * from './generator';
export * from './server';

/** The compiled entry point, for supervisors that launch the fake runtime as `node <FAKE_RUNTIME_MAIN>`. */
export const FAKE_RUNTIME_MAIN = join(__dirname, 'main.js');

/**
 * The fake runtime's arguments in a runtime record's launch spec, with the
 * agent's placeholders: how an openai-compatible record (a binary run by
 * node, or a container image) starts it the way it would start vLLM.
 */
export const FAKE_RUNTIME_LAUNCH_ARGS: readonly string[] = [
  '--host',
  '{{host}}',
  '--port',
  '{{port}}',
  '--model',
  '{{servedModelName}}',
  '--weights',
  '{{modelPath}}',
];
