import { expect } from 'chai';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { findRepoRoot } from './support/repo';

interface Opener {
  readonly browserOpener: (
    env: Record<string, string>,
    platform: string,
    interactive: boolean,
  ) => string | null;
}

// A specifier held in a variable keeps this a real ESM import() in the compiled CommonJS.
async function load(): Promise<Opener> {
  const url = pathToFileURL(path.join(findRepoRoot(), 'scripts', 'lib', 'open-browser.mjs')).href;
  return (await import(url)) as Opener;
}

describe('npm start opens the console', () => {
  it('on an interactive macOS terminal with `open`', async () => {
    expect((await load()).browserOpener({}, 'darwin', true)).to.equal('open');
  });

  it('never in CI, from a non-interactive launcher, when LUNANEXA_OPEN_CONSOLE=0, or on Linux without a display', async () => {
    const { browserOpener } = await load();
    expect(browserOpener({ CI: 'true' }, 'darwin', true)).to.equal(null);
    expect(browserOpener({}, 'darwin', false)).to.equal(null);
    expect(browserOpener({ LUNANEXA_OPEN_CONSOLE: '0', DISPLAY: ':0' }, 'linux', true)).to.equal(null);
    expect(browserOpener({}, 'linux', true)).to.equal(null);
  });
});
