import { expect } from 'chai';
import { runCli } from '../src/cli';
import { HEALTHY, captureIo, cannedApi, json } from './support';

describe('lunanexa arguments', () => {
  let api: Awaited<ReturnType<typeof cannedApi>>;
  before(async () => {
    api = await cannedApi({
      'POST /graphql': () => json(200, HEALTHY),
      'GET /ready': () => json(200, { status: 'ready', checks: [] }),
    });
  });
  afterEach(() => {
    api.requests.length = 0;
  });
  after(async () => {
    await api.close();
  });

  for (const [title, url] of [
    ['not a URL', 'localhost:4000'],
    ['not http(s)', 'ftp://127.0.0.1:4000'],
    ['with credentials', 'http://admin:secret@127.0.0.1:4000'],
    ['with a query', 'http://127.0.0.1:4000/?x=1'],
  ] as const) {
    it(`rejects an --api-url ${title} with USAGE and exit 64, sending nothing`, async () => {
      const io = captureIo({ LUNANEXA_API_URL: api.url });
      const code = await runCli(['--api-url', url, 'status'], io, '0.1.0');
      expect(code).to.equal(64);
      expect(io.err()).to.match(/^error\[USAGE\]: --api-url /);
      expect(io.err()).to.not.contain('secret');
      expect(api.requests).to.have.length(0);
    });
  }

  it('names LUNANEXA_API_URL when the bad URL came from the environment', async () => {
    const io = captureIo({ LUNANEXA_API_URL: 'nope' });
    expect(await runCli(['status'], io, '0.1.0')).to.equal(64);
    expect(io.err()).to.match(/^error\[USAGE\]: LUNANEXA_API_URL "nope"/);
  });

  it('prefers --api-url over LUNANEXA_API_URL', async () => {
    const io = captureIo({ LUNANEXA_API_URL: 'nope' });
    expect(await runCli(['--api-url', api.url, 'status'], io, '0.1.0')).to.equal(0);
    expect(api.requests.length).to.be.greaterThan(0);
  });

  it('uses LUNANEXA_API_URL, keeping a path prefix', async () => {
    const io = captureIo({ LUNANEXA_API_URL: `${api.url}/lunanexa` });
    await runCli(['status'], io, '0.1.0');
    expect(api.requests.map((r) => `${r.method} ${r.path}`).sort()).to.deep.equal([
      'GET /lunanexa/ready',
      'POST /lunanexa/graphql',
    ]);
  });

  for (const [title, argv, fragment] of [
    ['an unknown command', ['stauts'], "unknown command 'stauts'"],
    ['an unknown option', ['status', '--verbose'], "unknown option '--verbose'"],
    ['a stray argument', ['status', 'now'], 'too many arguments'],
    ['an idempotency key with spaces', ['ping', '--key', 'my key'], '--key must be'],
    ['an idempotency key over 128 characters', ['ping', '--key', `k${'x'.repeat(128)}`], '--key must be'],
    [
      'a message over 200 characters',
      ['ping', '--message', 'm'.repeat(201)],
      '--message must be 1-200 characters',
    ],
    ['an empty message', ['ping', '--message', ''], '--message must be 1-200 characters'],
    ['a timeout that is not a number', ['--timeout', 'soon', 'status'], '--timeout must be'],
    ['a zero timeout', ['--timeout', '0', 'version'], '--timeout must be'],
  ] as const) {
    it(`exits 64 for ${title}`, async () => {
      const io = captureIo();
      const code = await runCli(['--api-url', api.url, ...argv], io, '0.1.0');
      expect(code).to.equal(64);
      expect(io.err()).to.contain('error[USAGE]: ');
      expect(io.err()).to.contain(fragment);
      expect(api.requests).to.have.length(0);
    });
  }

  it('prints help on stdout and exits 0 for --help', async () => {
    const io = captureIo();
    expect(await runCli(['--help'], io, '0.1.0')).to.equal(0);
    expect(io.out()).to.contain('Usage: lunanexa');
    expect(io.out()).to.contain('--api-url <url>');
  });

  it('prints help on stderr and exits 64 when no command is given', async () => {
    const io = captureIo();
    expect(await runCli([], io, '0.1.0')).to.equal(64);
    expect(io.err()).to.contain('Usage: lunanexa');
  });
});
