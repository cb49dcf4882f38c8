import { join } from 'node:path';

export * from './config';
export * from './faults';
export * from './generator';
export * from './server';

/** The compiled entry point, for supervisors that launch the fake runtime as `node <FAKE_RUNTIME_MAIN>`. */
export const FAKE_RUNTIME_MAIN = join(__dirname, 'main.js');
