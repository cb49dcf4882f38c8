import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { expect } from 'chai';
import { AGENT_PROTOCOL_FIXTURES_DIR } from '../src/fixtures';

/** Compiled tests run from dist/test; keys and fixtures stay in the package root. */
export const PACKAGE_ROOT = join(__dirname, '..', '..');
export const KEYS_DIR = join(PACKAGE_ROOT, 'test', 'keys');
export const FIXTURES_PATH = join(PACKAGE_ROOT, AGENT_PROTOCOL_FIXTURES_DIR);

/** The published, TEST-ONLY key ids the fixtures are signed with. */
export const TEST_CONTROLLER_KEY_ID = 'test-controller';
export const TEST_NODE_KEY_ID = 'test-node';

export function testPrivateKey(name: 'controller' | 'node'): KeyObject {
  return createPrivateKey(readFileSync(join(KEYS_DIR, `TEST-ONLY-${name}.ed25519.pem`), 'utf8'));
}

export function testKeyFile(name: string): string {
  return readFileSync(join(KEYS_DIR, name), 'utf8');
}

export function freshKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}

export function publicOf(privateKey: KeyObject): KeyObject {
  return createPublicKey(privateKey);
}

export function fixtureFiles(): string[] {
  return readdirSync(FIXTURES_PATH).sort();
}

export function fixtureText(name: string): string {
  return readFileSync(join(FIXTURES_PATH, name), 'utf8');
}

export function fixture(name: string): unknown {
  return JSON.parse(fixtureText(name)) as unknown;
}

/** Asserts that `run` throws a LunaNexaError with `code` (codes, never messages). */
export function expectErrorCode(run: () => unknown, code: ErrorCode): LunaNexaError {
  try {
    run();
  } catch (error: unknown) {
    expect(error, String(error)).to.be.instanceOf(LunaNexaError);
    expect((error as LunaNexaError).code, (error as LunaNexaError).message).to.equal(code);
    return error as LunaNexaError;
  }
  return expect.fail(`expected a LunaNexaError ${code}, but nothing was thrown`);
}

export { ErrorCode };
