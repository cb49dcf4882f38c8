import { expect } from 'chai';
import {
  parseLabel,
  parseLabels,
  parseModelVersionRef,
  parseTaint,
  parseTaints,
  parseWholeNumber,
} from '../src/arguments';
import { runCli } from '../src/cli';
import { CliError } from '../src/errors';
import { captureIo, cannedApi, json } from './support';

function usageMessage(work: () => unknown): string {
  try {
    work();
  } catch (error: unknown) {
    if (error instanceof CliError && error.code === 'USAGE') return error.message;
    throw error;
  }
  throw new Error('expected a usage error');
}

describe('fleet command arguments', () => {
  describe('labels', () => {
    it('parses key=value, a prefixed key and an empty value', () => {
      expect(parseLabel('gpu=gb10')).to.deep.equal({ key: 'gpu', value: 'gb10' });
      expect(parseLabel('lunanexa.io/gpu-family=gb10')).to.deep.equal({
        key: 'lunanexa.io/gpu-family',
        value: 'gb10',
      });
      expect(parseLabel('spare=')).to.deep.equal({ key: 'spare', value: '' });
    });

    for (const [raw, fragment] of [
      ['gpu', 'label "gpu" must be key=value (e.g. gpu=gb10)'],
      ['=gb10', 'has an invalid key ""'],
      ['-gpu=gb10', 'has an invalid key "-gpu"'],
      ['gpu=gb 10', 'has an invalid value "gb 10"'],
      ['gpu=a=b', 'has an invalid value "a=b"'],
      [`k=${'v'.repeat(64)}`, 'has an invalid value'],
    ] as const) {
      it(`refuses ${JSON.stringify(raw)} with a message saying what is wrong`, () => {
        expect(usageMessage(() => parseLabel(raw))).to.contain(fragment);
      });
    }

    it('refuses a key given twice instead of letting the last one win', () => {
      expect(usageMessage(() => parseLabels(['rack=r1', 'rack=r2']))).to.equal(
        'label key "rack" is given twice',
      );
    });
  });

  describe('taints', () => {
    it('parses key=value:Effect and key:Effect', () => {
      expect(parseTaint('maintenance=true:NoSchedule')).to.deep.equal({
        key: 'maintenance',
        value: 'true',
        effect: 'NoSchedule',
      });
      expect(parseTaint('lunanexa.io/gpu:NoExecute')).to.deep.equal({
        key: 'lunanexa.io/gpu',
        value: '',
        effect: 'NoExecute',
      });
    });

    for (const [raw, fragment] of [
      [
        'maintenance=true',
        'must be key=value:Effect or key:Effect (Effect one of NoSchedule, PreferNoSchedule, NoExecute)',
      ],
      [
        'maintenance=true:noschedule',
        'has effect "noschedule"; it must be one of NoSchedule, PreferNoSchedule, NoExecute',
      ],
      ['maintenance=true:', 'has effect ""'],
      ['bad key=x:NoSchedule', 'has an invalid key "bad key"'],
      ['k=v v:NoSchedule', 'has an invalid value "v v"'],
    ] as const) {
      it(`refuses ${JSON.stringify(raw)}`, () => {
        expect(usageMessage(() => parseTaint(raw))).to.contain(fragment);
      });
    }

    it('refuses the same key and effect twice', () => {
      expect(usageMessage(() => parseTaints(['a=1:NoSchedule', 'a=2:NoSchedule']))).to.equal(
        'taint a:NoSchedule is given twice',
      );
    });
  });

  it('splits name@version and refuses other shapes', () => {
    expect(parseModelVersionRef('demo@v1')).to.deep.equal({ ref: 'demo@v1', model: 'demo', version: 'v1' });
    expect(usageMessage(() => parseModelVersionRef('demo'))).to.contain('must be <model-name>@<version>');
    expect(usageMessage(() => parseModelVersionRef('Demo@v1'))).to.contain('must be <model-name>@<version>');
  });

  it('reads whole numbers within bounds only', () => {
    expect(parseWholeNumber('900', '--ttl', 60, 86400)).to.equal(900);
    expect(usageMessage(() => parseWholeNumber('59', '--ttl', 60, 86400))).to.equal(
      '--ttl must be a whole number between 60 and 86400, not 59',
    );
    expect(usageMessage(() => parseWholeNumber('1e3', '--replicas', 1))).to.equal(
      '--replicas must be a whole number at least 1, not "1e3"',
    );
  });

  describe('on the command line', () => {
    let api: Awaited<ReturnType<typeof cannedApi>>;
    before(async () => {
      api = await cannedApi({ 'POST /graphql': () => json(200, { data: null }) });
    });
    afterEach(() => {
      api.requests.length = 0;
    });
    after(async () => {
      await api.close();
    });

    for (const [title, argv, fragment] of [
      ['a label without =', ['node', 'label', 'n1', 'gpu'], 'label "gpu" must be key=value'],
      [
        'no labels at all (would delete every label)',
        ['node', 'label', 'n1'],
        'give the complete new label set, or --none',
      ],
      ['labels together with --none', ['node', 'label', 'n1', 'a=b', '--none'], '--none removes every label'],
      ['a taint without effect', ['node', 'taint', 'n1', 'gpu=x'], 'must be key=value:Effect'],
      [
        'a taint with an unknown effect',
        ['node', 'taint', 'n1', 'gpu=x:Never'],
        'it must be one of NoSchedule',
      ],
      ['no taints at all', ['node', 'taint', 'n1'], 'give the complete new taint set, or --none'],
      [
        'a bad token label',
        ['node', 'token', 'create', '--label', 'rack'],
        '--label "rack" must be key=value',
      ],
      [
        'a token TTL below a minute',
        ['node', 'token', 'create', '--ttl', '30'],
        '--ttl must be a whole number between 60 and 86400',
      ],
      [
        'a token node name with capitals',
        ['node', 'token', 'create', '--node-name', 'Spark'],
        '--node-name "Spark" must be a lower-case DNS label',
      ],
      ['a reject without --reason', ['node', 'reject', 'n1'], '--reason must be 1-1024 characters'],
      [
        'a drain timeout that is not a number',
        ['node', 'drain', 'n1', '--timeout', '1m'],
        '--timeout (seconds) must be a whole number',
      ],
      ['a drain key with spaces', ['node', 'drain', 'n1', '--key', 'a b'], '--key must be'],
      [
        'a model ref without version',
        ['model', 'register', 'demo'],
        'model version "demo" must be <model-name>@<version>',
      ],
      [
        'a zero --tokens-per-second',
        ['model', 'register', 'demo@v1', '--tokens-per-second', '0'],
        '--tokens-per-second must be',
      ],
      ['a deployment without --model', ['deploy', 'create', 'chat'], '--model <name>@<version> is required'],
      [
        'a deployment name with capitals',
        ['deploy', 'create', 'Chat', '--model', 'demo@v1'],
        'deployment name "Chat"',
      ],
      [
        'zero replicas',
        ['deploy', 'create', 'chat', '--model', 'demo@v1', '--replicas', '0'],
        '--replicas must be',
      ],
      [
        'an unknown --purpose',
        ['deploy', 'create', 'chat', '--model', 'demo@v1', '--purpose', 'canary'],
        '--purpose must be serving or candidate, not "canary"',
      ],
      [
        '--wait-timeout without --wait',
        ['deploy', 'create', 'chat', '--model', 'demo@v1', '--wait-timeout', '5'],
        'only applies with --wait',
      ],
      ['a missing node argument', ['node', 'get'], "missing required argument 'node'"],
      ['an unknown node subcommand', ['node', 'delete', 'n1'], "unknown command 'delete'"],
    ] as const) {
      it(`exits 64 for ${title}, sending nothing`, async () => {
        const io = captureIo();
        const code = await runCli(['--api-url', api.url, ...argv], io, '0.1.0');
        expect(code, io.err()).to.equal(64);
        expect(io.err()).to.contain('error[USAGE]: ');
        expect(io.err()).to.contain(fragment);
        expect(api.requests).to.have.length(0);
      });
    }

    it('documents that node label replaces the whole set', async () => {
      const io = captureIo();
      expect(await runCli(['node', 'label', '--help'], io, '0.1.0')).to.equal(0);
      expect(io.out()).to.contain('REPLACE the node labels');
      expect(io.out()).to.contain('a label left out is removed');
    });

    it('lists the fleet commands in the top-level help', async () => {
      const io = captureIo();
      expect(await runCli(['--help'], io, '0.1.0')).to.equal(0);
      for (const command of ['node', 'model', 'deploy', 'invoke'])
        expect(io.out()).to.match(new RegExp(`^  ${command} `, 'm'));
    });
  });
});
