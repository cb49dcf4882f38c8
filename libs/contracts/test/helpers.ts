import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ErrorCode } from '../src/errors';
import { LunaNexaError } from '../src/errors';
import { FIXTURES_DIR } from '../src/fixtures';

/** Compiled tests live in dist/test; fixtures stay at the package root. */
export const fixturesPath = join(__dirname, '..', '..', FIXTURES_DIR);

export function fixtureFiles(): string[] {
  return readdirSync(fixturesPath).sort();
}

export function fixtureText(name: string): string {
  return readFileSync(join(fixturesPath, name), 'utf8');
}

export function fixture(name: string): unknown {
  return JSON.parse(fixtureText(name)) as unknown;
}

/** Asserts that `run` throws a LunaNexaError with `code` (tests assert codes, never messages). */
export function expectErrorCode(run: () => unknown, code: ErrorCode): LunaNexaError {
  try {
    run();
  } catch (error: unknown) {
    expect(error).to.be.instanceOf(LunaNexaError);
    expect((error as LunaNexaError).code).to.equal(code);
    return error as LunaNexaError;
  }
  expect.fail(`expected a LunaNexaError ${code}, but nothing was thrown`);
}
