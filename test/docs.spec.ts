import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { findRepoRoot } from './support/repo';

/** Longest line a person reads in docs/ without scrolling sideways; a wider table becomes a list. */
const MAX_LINE = 200;

/** `file:line (length)` for every line of `text` longer than MAX_LINE. */
export function overlongLines(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      [...line].length > MAX_LINE ? [`${file}:${index + 1} (${[...line].length} characters)`] : [],
    );
}

describe('docs a person can read', () => {
  const docs = path.join(findRepoRoot(), 'docs');

  it(`has no line over ${MAX_LINE} characters in docs/`, () => {
    const files = readdirSync(docs).filter((name) => name.endsWith('.md'));
    expect(files).to.include('ARCHITECTURE.md');
    const found = files.flatMap((name) =>
      overlongLines(`docs/${name}`, readFileSync(path.join(docs, name), 'utf8')),
    );
    expect(found, 'wrap the line, or turn the wide table into a list').to.deep.equal([]);
  });

  it('finds a planted overlong line and counts characters, not bytes', () => {
    const planted = ['# Title', `| ${'x'.repeat(MAX_LINE)} |`, '→'.repeat(MAX_LINE)].join('\n');
    expect(overlongLines('docs/PLANTED.md', planted)).to.deep.equal([
      `docs/PLANTED.md:2 (${MAX_LINE + 4} characters)`,
    ]);
  });
});
