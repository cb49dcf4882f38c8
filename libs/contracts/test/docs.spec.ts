import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ERROR_CODES, HTTP_STATUS_BY_CODE } from '../src/errors';
import { OPENAI_ERROR_TYPE_BY_CODE } from '../src/openai';

/** docs/CONTRACTS.md at the repository root, four levels above dist/test. Table cells may be padded (Prettier aligns them). */
const CONTRACTS_DOC = join(__dirname, '..', '..', '..', '..', 'docs', 'CONTRACTS.md');

describe('docs/CONTRACTS.md', () => {
  const rows = new Map<string, { status: number; openAiType: string }>();
  for (const match of readFileSync(CONTRACTS_DOC, 'utf8').matchAll(
    /^\| `([A-Z_]+)` +\| (\d{3}) +\| `([a-z_]+)` +\|/gm,
  )) {
    rows.set(match[1], { status: Number(match[2]), openAiType: match[3] });
  }

  it('documents every error code with its HTTP status and OpenAI type', () => {
    for (const code of ERROR_CODES) {
      expect(rows.get(code), code).to.deep.equal({
        status: HTTP_STATUS_BY_CODE[code],
        openAiType: OPENAI_ERROR_TYPE_BY_CODE[code],
      });
    }
  });

  it('documents no code that does not exist', () => {
    expect(
      [...rows.keys()].filter((code) => !(ERROR_CODES as readonly string[]).includes(code)),
    ).to.deep.equal([]);
  });
});
