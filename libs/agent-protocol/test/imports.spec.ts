import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { PACKAGE_ROOT } from './support';

/**
 * libs/agent-protocol is pure protocol: it may use node:crypto (signing,
 * digests), zod and @lunanexa/contracts, and nothing that does network or
 * file I/O — the agent and the controller bring their own transport.
 */
const ALLOWED = new Set(['node:crypto', 'zod', '@lunanexa/contracts']);

function specifiers(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(
    /\bfrom\s+'([^']+)'|\bimport\s*\(\s*'([^']+)'\s*\)|\brequire\s*\(\s*'([^']+)'\s*\)|^import\s+'([^']+)'/gm,
  )) {
    const specifier = match[1] ?? match[2] ?? match[3] ?? match[4];
    if (specifier !== undefined) found.push(specifier);
  }
  return found;
}

describe('libs/agent-protocol imports', () => {
  const dir = join(PACKAGE_ROOT, 'src');
  const files = readdirSync(dir).filter((file) => file.endsWith('.ts'));

  it('finds imports (the check below can fail)', () => {
    expect(
      specifiers("import { a } from 'ssh2';\nconst b = require('node:net');\nimport('node:fs');"),
    ).to.deep.equal(['ssh2', 'node:net', 'node:fs']);
    expect(files.length).to.be.greaterThan(5);
  });

  it('imports only node:crypto, zod, @lunanexa/contracts and its own files', () => {
    const offending = files.flatMap((file) =>
      specifiers(readFileSync(join(dir, file), 'utf8'))
        .filter((specifier) => !specifier.startsWith('./') && !ALLOWED.has(specifier))
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(offending).to.deep.equal([]);
  });
});
