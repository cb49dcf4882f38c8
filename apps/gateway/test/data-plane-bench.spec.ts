import { expect } from 'chai';
import { type CpuProfile, renderTopFunctions, shortLocation, summariseProfile } from '../bench/cpu-profile';
import { renderNginxConfig } from '../bench/nginx';
import {
  BenchUsageError,
  DEFAULT_RESULTS_FILE,
  PROCESSES_RESULTS_FILE,
  parseBenchArgs,
} from '../bench/options';
import { renderTable, scenarioName } from '../bench/report';
import { BENCH_ALIAS, BENCH_MODEL_REF, chatBody, newGatewayKey } from '../bench/seed';
import {
  type DerivedFigures,
  type Percentiles,
  type RunFigures,
  type ScenarioFigures,
  combineRounds,
  deriveFigures,
  evaluateTargets,
  median,
  percentile,
  percentilesOf,
} from '../bench/stats';

function percentiles(p50: number, p99: number): Percentiles {
  return { p50, p95: (p50 + p99) / 2, p99, max: p99 * 2, mean: p50 };
}

function run(p50: number, p99: number, requestsPerSecond: number, errors = 0): RunFigures {
  return {
    requests: 1000,
    errors,
    errorKinds: errors > 0 ? { 'status 503': errors } : {},
    elapsedMs: 1000,
    requestsPerSecond,
    totalMs: percentiles(p50, p99),
    firstByteMs: percentiles(p50 / 2, p99 / 2),
  };
}

function scenario(
  stream: boolean,
  concurrency: number,
  figures: Partial<Record<'direct' | 'nginx' | 'gateway', RunFigures>>,
): ScenarioFigures {
  return {
    stream,
    concurrency,
    targets: Object.fromEntries(Object.entries(figures).map(([target, f]) => [target, combineRounds([f])])),
  };
}

describe('data-plane bench', () => {
  describe('percentiles', () => {
    it('takes the nearest rank: the smallest sample with at least p% at or below it', () => {
      const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
      expect(percentile(sorted, 50)).to.equal(50);
      expect(percentile(sorted, 99)).to.equal(99);
      expect(percentile(sorted, 100)).to.equal(100);
      expect(percentile([7], 99)).to.equal(7);
      expect(percentile([1, 2, 3], 0)).to.equal(1);
      expect(Number.isNaN(percentile([], 50))).to.equal(true);
    });

    it('summarises unsorted samples to the microsecond', () => {
      const samples = Float64Array.from([0.3, 0.1, 0.2, 0.4, 10.0001]);
      expect(percentilesOf(samples)).to.deep.equal({ p50: 0.3, p95: 10, p99: 10, max: 10, mean: 2.2 });
      expect(Number.isNaN(percentilesOf(new Float64Array()).p50)).to.equal(true);
    });

    it('takes the median of an odd and an even count, ignoring NaN', () => {
      expect(median([3, 1, 2])).to.equal(2);
      expect(median([4, 1, 3, 2])).to.equal(2.5);
      expect(median([Number.NaN, 5])).to.equal(5);
      expect(Number.isNaN(median([]))).to.equal(true);
    });

    it('combines rounds into per-figure medians and total counts', () => {
      const combined = combineRounds([run(1, 9, 100, 1), run(3, 5, 300), run(2, 7, 200, 2)]);
      expect(combined.totalMs.p50).to.equal(2);
      expect(combined.totalMs.p99).to.equal(7);
      expect(combined.firstByteMs.p50).to.equal(1);
      expect(combined.requestsPerSecond).to.equal(200);
      expect(combined.requests).to.equal(3000);
      expect(combined.errors).to.equal(3);
      expect(combined.errorKinds).to.deep.equal({ 'status 503': 3 });
      expect(combined.rounds).to.have.length(3);
    });
  });

  describe('derived figures and the issue targets', () => {
    it('computes added latency over direct and throughput ratios', () => {
      const derived = deriveFigures(
        scenario(false, 10, {
          direct: run(1, 2, 1000),
          nginx: run(1.1, 2.5, 950),
          gateway: run(1.4, 3, 800),
        }),
      );
      expect(derived.addedLatencyMs.nginx).to.deep.equal({
        totalP50: 0.1,
        totalP99: 0.5,
        firstByteP50: 0.05,
        firstByteP99: 0.25,
      });
      expect(derived.addedLatencyMs.gateway.totalP50).to.equal(0.4);
      expect(derived.addedLatencyMs.gateway.totalP99).to.equal(1);
      expect(derived.throughputRatio).to.deep.equal({
        gatewayOverNginx: 0.842,
        gatewayOverDirect: 0.8,
        nginxOverDirect: 0.95,
      });
    });

    it('leaves figures null when a target was not measured', () => {
      const derived = deriveFigures(scenario(true, 64, { direct: run(1, 2, 1000), gateway: run(2, 3, 900) }));
      expect(derived.addedLatencyMs.nginx.totalP50).to.equal(null);
      expect(derived.throughputRatio.gatewayOverNginx).to.equal(null);
      expect(derived.throughputRatio.gatewayOverDirect).to.equal(0.9);
    });

    it('checks added latency at c=1 and c=64 and throughput against nginx at c=10 and c=64', () => {
      const all: DerivedFigures[] = [
        deriveFigures(
          scenario(false, 1, { direct: run(1, 2, 10), nginx: run(1, 2, 10), gateway: run(1.5, 3, 9) }),
        ),
        deriveFigures(
          scenario(false, 10, { direct: run(1, 2, 100), nginx: run(1, 2, 100), gateway: run(1, 2, 80) }),
        ),
        deriveFigures(
          scenario(false, 64, { direct: run(1, 2, 100), nginx: run(1, 2, 100), gateway: run(1, 2, 79) }),
        ),
        deriveFigures(
          scenario(false, 32, { direct: run(1, 2, 100), nginx: run(1, 2, 100), gateway: run(1, 2, 1) }),
        ),
      ];
      const { checks, allMet } = evaluateTargets(all);
      expect(checks.map((c) => [c.concurrency, c.figure, c.value, c.met])).to.deep.equal([
        [1, 'addedLatencyP50Ms', 0.5, true],
        [1, 'addedLatencyP99Ms', 1, true],
        [10, 'throughputVsNginx', 0.8, true],
        [64, 'addedLatencyP99AtLoadMs', 0, true],
        [64, 'throughputVsNginx', 0.79, false],
      ]);
      expect(allMet).to.equal(false);
    });

    it('says all met only when every check was measured and met', () => {
      const met = deriveFigures(
        scenario(true, 10, { direct: run(1, 2, 100), nginx: run(1, 2, 100), gateway: run(1, 2, 90) }),
      );
      const unmeasured = deriveFigures(
        scenario(true, 64, { direct: run(1, 2, 100), gateway: run(1, 2, 90) }),
      );
      expect(evaluateTargets([met]).allMet).to.equal(true);
      expect(evaluateTargets([met, unmeasured]).allMet).to.equal(null);
      expect(evaluateTargets([]).allMet).to.equal(null);
    });
  });

  describe('nginx config', () => {
    const conf = renderNginxConfig({
      prefix: '/tmp/bench-nginx',
      listenPort: 18080,
      upstreamPort: 18000,
      upstreamKeepalive: 128,
      workerProcesses: 1,
    });

    it('runs as many workers as the gateway has', () => {
      const two = renderNginxConfig({
        prefix: '/tmp/bench-nginx',
        listenPort: 18080,
        upstreamPort: 18000,
        upstreamKeepalive: 128,
        workerProcesses: 2,
      });
      expect(two).to.match(/^worker_processes 2;$/m);
    });

    it('is one worker proxying to the runtime with buffering off, HTTP/1.1 and an upstream keep-alive pool', () => {
      expect(conf).to.match(/^worker_processes 1;$/m);
      expect(conf).to.match(/^\s+listen 127\.0\.0\.1:18080;$/m);
      expect(conf).to.match(/^\s+server 127\.0\.0\.1:18000;$/m);
      expect(conf).to.match(/^\s+keepalive 128;$/m);
      expect(conf).to.match(/^\s+proxy_pass http:\/\/runtime;$/m);
      expect(conf).to.match(/^\s+proxy_buffering off;$/m);
      expect(conf).to.match(/^\s+proxy_http_version 1\.1;$/m);
      // Without clearing Connection, nginx would send "close" and the keep-alive pool would never be used.
      expect(conf).to.match(/^\s+proxy_set_header Connection "";$/m);
    });

    it('keeps everything nginx writes under its prefix', () => {
      const paths = [...conf.matchAll(/\s(\/[^\s;]+)/g)].map((match) => match[1]);
      expect(paths).to.have.length.greaterThan(5);
      for (const path of paths) expect(path).to.match(/^\/tmp\/bench-nginx\//);
      expect(conf).to.not.match(/daemon/);
    });
  });

  describe('flags', () => {
    it('defaults to 3 rounds of 3 s at c=1,10,64 over every target, streamed and not', () => {
      expect(parseBenchArgs([])).to.deep.equal({
        durationMs: 3000,
        requests: null,
        warmupMs: 1000,
        rounds: 3,
        concurrency: [1, 10, 64],
        targets: ['direct', 'nginx', 'gateway'],
        streams: [false, true],
        cpuProf: false,
        processes: 1,
        out: DEFAULT_RESULTS_FILE,
      });
    });

    it('runs N gateway workers and N nginx workers with --processes, into their own results file', () => {
      expect(parseBenchArgs(['--processes', '2'])).to.include({ processes: 2, out: PROCESSES_RESULTS_FILE });
      expect(parseBenchArgs(['--processes', '2', '--out', 'x.json'])).to.include({ out: 'x.json' });
    });

    it('reads every flag, keeping targets in their fixed order', () => {
      const options = parseBenchArgs([
        '--requests',
        '500',
        '--rounds',
        '1',
        '--concurrency',
        '64,1',
        '--only',
        'gateway,direct',
        '--stream',
        'yes',
        '--cpu-prof',
        '--warmup-ms',
        '0',
      ]);
      expect(options).to.include({ durationMs: null, requests: 500, rounds: 1, warmupMs: 0, cpuProf: true });
      expect(options?.concurrency).to.deep.equal([64, 1]);
      expect(options?.targets).to.deep.equal(['direct', 'gateway']);
      expect(options?.streams).to.deep.equal([true]);
      expect(parseBenchArgs(['--help'])).to.equal(null);
    });

    it('refuses bad values naming the flag', () => {
      for (const [args, message] of [
        [['--duration-ms', '100', '--requests', '5'], 'exclude each other'],
        [['--only', 'envoy'], 'unknown target "envoy"'],
        [['--concurrency', '1,,2'], '--concurrency'],
        [['--concurrency', '0'], '--concurrency'],
        [['--rounds', 'many'], '--rounds'],
        [['--stream', 'maybe'], '--stream'],
        [['--bogus'], 'bogus'],
        [['--processes', '0'], '--processes'],
      ] as const) {
        expect(() => parseBenchArgs(args), args.join(' ')).to.throw(BenchUsageError, message);
      }
    });
  });

  describe('requests', () => {
    it('asks the gateway for its alias in a body as long as the one direct and nginx get', () => {
      for (const stream of [false, true]) {
        expect(chatBody(BENCH_ALIAS, stream)).to.have.length(chatBody(BENCH_MODEL_REF, stream).length);
      }
    });

    it('mints tenant keys in the lnxk_ format', () => {
      expect(newGatewayKey()).to.match(/^lnxk_[A-Za-z0-9_-]{43}$/);
    });
  });

  describe('table', () => {
    it('prints one row per target with added latency and ratios on the proxies, then the targets', () => {
      const scenarios = [
        {
          name: scenarioName(false),
          ...scenario(false, 1, {
            direct: run(1, 2, 100),
            nginx: run(1.1, 2.2, 98),
            gateway: run(1.3, 3.4, 90),
          }),
        },
      ];
      const derived = scenarios.map(deriveFigures);
      const table = renderTable({ scenarios, derived, targets: evaluateTargets(derived) });
      const lines = table.split('\n');
      expect(lines[1]).to.match(/^scenario\s+c\s+target\s+p50/);
      expect(lines[2]).to.match(/^not streamed\s+1\s+direct\s+1\.000\s/);
      expect(lines[3]).to.match(/nginx .* \+0\.100\s+\+0\.200$/);
      expect(lines[4]).to.match(/gateway .* \+0\.300\s+\+1\.400\s+0\.918\s+0\.900$/);
      expect(table).to.contain('met          added p50 at c=1, not streamed: +0.300 ms (<= 0.5 ms)');
      expect(table).to.contain('MISSED       added p99 at c=1, not streamed: +1.400 ms (<= 1 ms)');
    });

    it('prints CPU time per request and the gateway/nginx ratio when it was sampled', () => {
      const base = scenario(false, 10, {
        direct: run(1, 2, 100),
        nginx: run(1, 2, 100),
        gateway: run(1, 2, 90),
      });
      const withCpu = {
        ...base,
        name: scenarioName(false),
        targets: {
          ...base.targets,
          nginx: { ...base.targets.nginx!, cpuMsPerRequest: 0.1 },
          gateway: { ...base.targets.gateway!, cpuMsPerRequest: 0.25 },
        },
      };
      const derived = [deriveFigures(withCpu)];
      expect(derived[0]?.cpuPerRequestRatio.gatewayOverNginx).to.equal(2.5);
      const lines = renderTable({ scenarios: [withCpu], derived, targets: evaluateTargets(derived) }).split(
        '\n',
      );
      expect(lines[3]).to.match(/nginx .* 0\.100$/);
      expect(lines[4]).to.match(/gateway .* 0\.250\s+2\.500$/);
    });
  });

  describe('CPU profile', () => {
    // root → main → (handle → parse), (idle); samples every 1000 µs.
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 5] },
        {
          id: 2,
          callFrame: {
            functionName: 'main',
            url: 'file:///repo/apps/gateway/dist/src/main.js',
            lineNumber: 9,
          },
          children: [3],
        },
        {
          id: 3,
          callFrame: {
            functionName: 'handle',
            url: 'file:///repo/apps/gateway/dist/src/server.js',
            lineNumber: 0,
          },
          children: [4],
        },
        {
          id: 4,
          callFrame: { functionName: 'parse', url: 'file:///repo/node_modules/zod/index.js', lineNumber: 41 },
        },
        { id: 5, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
      ],
      startTime: 0,
      endTime: 6000,
      samples: [4, 4, 3, 2, 5, 4],
      timeDeltas: [0, 1000, 1000, 1000, 1000, 1000],
    };

    it('gives self and total time per function, most self time first, idle left out', () => {
      const summary = summariseProfile(profile, '/repo');
      expect(summary.durationMs).to.equal(6);
      expect(summary.busyMs).to.equal(5);
      expect(summary.functions.map((f) => [f.functionName, f.location, f.selfMs, f.totalMs])).to.deep.equal([
        ['parse', 'node_modules/zod/index.js:42', 3, 3],
        ['main', 'apps/gateway/dist/src/main.js:10', 1, 5],
        ['handle', 'apps/gateway/dist/src/server.js:1', 1, 4],
      ]);
      expect(summary.functions[0]?.selfPercent).to.equal(60);
      expect(renderTopFunctions(summary, 2).split('\n')).to.have.length(5);
      expect(renderTopFunctions(summary, 1, 'total')).to.match(
        /\n\s+1\.0\s+20\.0%\s+5\.0\s+100\.0%\s+main\s/,
      );
    });

    it('shortens locations to the repository or node_modules', () => {
      expect(shortLocation('file:///elsewhere/node_modules/pg/lib/client.js', 3)).to.equal(
        'node_modules/pg/lib/client.js:4',
      );
      expect(shortLocation('node:internal/streams/readable', 319)).to.equal(
        'node:internal/streams/readable:320',
      );
      expect(shortLocation('', 0)).to.equal('');
    });
  });
});
