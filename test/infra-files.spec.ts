import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { metricNames } from '@lunanexa/e2e/dist/src/monitoring';

/**
 * Static checks of the deployment material in infra/: everything parses, the
 * monitoring config covers every LunaNexa process and uses only the metric
 * names the services export, units are sandboxed, scripts are strict bash.
 * Runs from test/dist/, hence two levels up.
 */
const repoRoot = path.resolve(__dirname, '../..');
const infra = path.join(repoRoot, 'infra');

/**
 * The metric names dashboards and alerts may use (see infra/README.md). This
 * file checks the material against the list; e2e/test/monitoring.e2e.ts checks
 * the expressions against what the running processes really export.
 */
const LUNANEXA_METRICS = [
  'lunanexa_http_requests_total',
  'lunanexa_http_request_duration_seconds_bucket',
  'lunanexa_node_condition',
  'lunanexa_nodes_agent_outdated',
  'lunanexa_workflow_failures_total',
  'lunanexa_gpu_utilization_ratio',
  'lunanexa_gpu_memory_used_bytes',
  'lunanexa_gpu_memory_total_bytes',
  'lunanexa_gpu_temperature_celsius',
  'lunanexa_gpu_power_watts',
  'lunanexa_gpu_throttled',
  'lunanexa_gpu_ecc_errors_total',
  'lunanexa_gpu_lost',
  'lunanexa_gpu_last_xid',
];
const PROCESSES = ['api', 'gateway', 'worker', 'agent'] as const;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}

const files = walk(infra);
const rel = (file: string): string => path.relative(repoRoot, file);
const isYaml = (file: string): boolean => /\.ya?ml(\.example)?$/.test(file);

function readYaml(file: string): unknown {
  const doc = parseDocument(readFileSync(file, 'utf8'), { uniqueKeys: true });
  if (doc.errors.length > 0) throw new Error(`${rel(file)}: ${doc.errors.map((e) => e.message).join('; ')}`);
  return doc.toJS();
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

type Dict = Record<string, unknown>;
const asDict = (value: unknown): Dict => {
  expect(value, 'expected a mapping').to.be.an('object').and.not.an('array');
  return value as Dict;
};
const asList = (value: unknown): unknown[] => {
  expect(value, 'expected a list').to.be.an('array');
  return value as unknown[];
};

/** systemd unit file → section → key → values (keys may repeat). */
function readUnit(file: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set(header[1] ?? '', current);
      continue;
    }
    const eq = line.indexOf('=');
    expect(eq, `${rel(file)}: "${line}" is not key=value`).to.be.greaterThan(0);
    expect(current, `${rel(file)}: "${line}" before any [section]`).to.not.equal(undefined);
    const key = line.slice(0, eq).trim();
    current!.set(key, [...(current!.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

describe('infra/ deployment files', () => {
  it('has the expected layout', () => {
    for (const expected of [
      'README.md',
      'temporal/README.md',
      'temporal/config/production.yaml',
      'temporal/setup-schema.sh',
      'prometheus/prometheus.yml',
      'prometheus/alerts.yml',
      'grafana/provisioning/datasources',
      'grafana/provisioning/dashboards',
      'network-policy/nftables.conf.tmpl',
      'backup/backup.sh',
      'backup/restore.sh',
      ...PROCESSES.map((p) => `systemd/lunanexa-${p}.service`),
    ]) {
      expect(
        files.some((f) => rel(f) === `infra/${expected}` || rel(f).startsWith(`infra/${expected}/`)),
        `infra/${expected}`,
      ).to.equal(true);
    }
  });

  describe('every YAML and JSON file parses', () => {
    for (const file of files.filter(isYaml)) {
      it(rel(file), () => {
        readYaml(file);
      });
    }
    for (const file of files.filter((f) => f.endsWith('.json'))) {
      it(rel(file), () => {
        readJson(file);
      });
    }
  });

  describe('Prometheus', () => {
    const config = asDict(readYaml(path.join(infra, 'prometheus/prometheus.yml')));
    const jobs = asList(config['scrape_configs']).map(asDict);

    for (const process of PROCESSES) {
      it(`scrapes the ${process} on /metrics`, () => {
        const job = jobs.find((j) => j['job_name'] === `lunanexa-${process}`);
        expect(job, `scrape job lunanexa-${process}`).to.not.equal(undefined);
        expect(job!['metrics_path'] ?? '/metrics').to.equal('/metrics');
        const fileSd = asList(job!['file_sd_configs'] ?? []).flatMap((c) => asList(asDict(c)['files']));
        const staticTargets = asList(job!['static_configs'] ?? []).flatMap((c) =>
          asList(asDict(c)['targets']),
        );
        expect(fileSd.length + staticTargets.length, 'targets').to.be.greaterThan(0);
        // Every target file has an example next to prometheus.yml.
        for (const target of fileSd) {
          const example = path.join(infra, 'prometheus/targets', path.basename(String(target)));
          expect(files, `${rel(example)} (example of ${String(target)})`).to.include(example);
        }
      });
    }

    it('loads alerts.yml', () => {
      expect(asList(config['rule_files'])).to.include('alerts.yml');
    });

    describe('alert rules', () => {
      const groups = asList(asDict(readYaml(path.join(infra, 'prometheus/alerts.yml')))['groups']).map(
        asDict,
      );
      const rules = groups.flatMap((g) => asList(g['rules']).map(asDict));

      it('cover node reachability, workflow failures, gateway error rate and p95 latency', () => {
        const exprs = rules.map((r) => String(r['expr']));
        expect(
          exprs.some((e) => e.includes('lunanexa_node_condition') && e.includes('Unreachable')),
        ).to.equal(true);
        expect(exprs.some((e) => e.includes('lunanexa_workflow_failures_total'))).to.equal(true);
        expect(
          exprs.some(
            (e) => e.includes('lunanexa_http_requests_total') && e.includes('gateway') && e.includes('5..'),
          ),
        ).to.equal(true);
        expect(
          exprs.some(
            (e) =>
              e.includes('histogram_quantile(0.95') &&
              e.includes('lunanexa_http_request_duration_seconds_bucket'),
          ),
        ).to.equal(true);
      });

      it('cover GPU health: GpuHealthy False, new Xids, ECC errors, sustained heat and thermal throttling, MemoryPressure', () => {
        const exprs = rules.map((r) => String(r['expr']));
        const has = (...parts: string[]) => exprs.some((e) => parts.every((part) => e.includes(part)));
        expect(has('lunanexa_node_condition', 'GpuHealthy', 'False')).to.equal(true);
        expect(has('lunanexa_gpu_last_xid')).to.equal(true);
        expect(has('lunanexa_gpu_ecc_errors_total')).to.equal(true);
        expect(has('lunanexa_gpu_temperature_celsius')).to.equal(true);
        expect(has('lunanexa_gpu_throttled', 'Thermal')).to.equal(true);
        expect(has('lunanexa_node_condition', 'MemoryPressure', 'True')).to.equal(true);
        // Bounded labels: GPU alerts group by node and GPU index only (never uuid or pid).
        for (const expr of exprs.filter((e) => e.includes('lunanexa_gpu_')))
          expect(expr, expr).to.not.match(/uuid|pid/);
      });

      const runbook = readFileSync(path.join(repoRoot, 'docs/OPERATIONS.md'), 'utf8');
      for (const rule of rules) {
        it(`${String(rule['alert'])} has a runbook section in docs/OPERATIONS.md`, () => {
          expect(runbook.split('\n'), 'a "### <alert name>" heading under "## Alerts"').to.include(
            `### ${String(rule['alert'])}`,
          );
        });
      }

      for (const rule of rules) {
        it(`${String(rule['alert'])} has expr, for, labels.severity and a summary`, () => {
          expect(rule['alert'])
            .to.be.a('string')
            .and.match(/^LunaNexa[A-Za-z]+$/);
          expect(rule['expr']).to.be.a('string').and.not.equal('');
          expect(rule['for'])
            .to.be.a('string')
            .and.match(/^\d+[smh]$/);
          expect(asDict(rule['labels'])['severity']).to.be.oneOf(['critical', 'warning']);
          expect(asDict(rule['annotations'])['summary']).to.be.a('string').and.not.equal('');
          for (const name of metricNames(String(rule['expr']))) {
            expect([...LUNANEXA_METRICS, 'up'], `metric ${name}`).to.include(name);
          }
        });
      }
    });
  });

  describe('Grafana', () => {
    const datasources = asList(
      asDict(readYaml(path.join(infra, 'grafana/provisioning/datasources/lunanexa-prometheus.yml')))[
        'datasources'
      ],
    ).map(asDict);
    const dashboardFiles = files.filter(
      (f) => f.startsWith(path.join(infra, 'grafana/dashboards')) && f.endsWith('.json'),
    );

    it('provisions a Prometheus datasource and a file dashboard provider', () => {
      expect(datasources.map((d) => d['type'])).to.include('prometheus');
      const providers = asList(
        asDict(readYaml(path.join(infra, 'grafana/provisioning/dashboards/lunanexa.yml')))['providers'],
      ).map(asDict);
      expect(providers.map((p) => p['type'])).to.include('file');
      expect(dashboardFiles).to.have.length.greaterThan(0);
    });

    for (const file of dashboardFiles) {
      describe(rel(file), () => {
        const dashboard = asDict(readJson(file));
        const panels = asList(dashboard['panels']).map(asDict);
        const exprs = panels.flatMap((p) => asList(p['targets'] ?? []).map((t) => String(asDict(t)['expr'])));

        it('references only the LunaNexa metric names', () => {
          expect(exprs.length).to.be.greaterThan(0);
          for (const expr of exprs) {
            const names = metricNames(expr);
            expect(names, expr).to.have.length.greaterThan(0);
            for (const name of names) expect(LUNANEXA_METRICS, `${name} in ${expr}`).to.include(name);
          }
        });

        it('shows gateway request rate, latency and errors, and node conditions', () => {
          const gateway = exprs.filter((e) => e.includes('service="gateway"'));
          expect(
            gateway.some((e) => e.includes('lunanexa_http_requests_total') && e.includes('rate(')),
          ).to.equal(true);
          expect(gateway.some((e) => e.includes('lunanexa_http_request_duration_seconds_bucket'))).to.equal(
            true,
          );
          expect(gateway.some((e) => e.includes('status=~"5.."'))).to.equal(true);
          expect(exprs.some((e) => e.includes('lunanexa_node_condition'))).to.equal(true);
        });

        it('shows GPU utilisation, memory, temperature, power, throttling, Xid/ECC and node conditions', () => {
          for (const metric of [
            'lunanexa_gpu_utilization_ratio',
            'lunanexa_gpu_memory_used_bytes',
            'lunanexa_gpu_temperature_celsius',
            'lunanexa_gpu_power_watts',
            'lunanexa_gpu_throttled',
            'lunanexa_gpu_last_xid',
            'lunanexa_gpu_ecc_errors_total',
          ])
            expect(exprs.some((e) => e.includes(metric), metric)).to.equal(true);
          expect(
            exprs.some((e) => e.includes('lunanexa_node_condition') && e.includes('status!=""')),
          ).to.equal(true);
        });

        it('uses the provisioned datasource', () => {
          const uids = new Set(datasources.map((d) => d['uid']));
          const variable = asList(asDict(dashboard['templating'])['list'])
            .map(asDict)
            .find((v) => v['type'] === 'datasource');
          expect(variable, 'a datasource variable').to.not.equal(undefined);
          expect(uids).to.include(asDict(variable!['current'])['value']);
        });
      });
    }
  });

  describe('systemd units', () => {
    const units = files.filter((f) => f.endsWith('.service'));

    for (const unit of units) {
      it(`${rel(unit)} is hardened and restarts on failure`, () => {
        const service = readUnit(unit).get('Service');
        expect(service, '[Service] section').to.not.equal(undefined);
        const one = (key: string): string | undefined => service!.get(key)?.at(-1);
        expect(one('NoNewPrivileges')).to.equal('yes');
        expect(one('ProtectSystem')).to.equal('strict');
        expect(one('ReadWritePaths'), 'ReadWritePaths').to.match(/^\//);
        expect(one('EnvironmentFile'), 'EnvironmentFile').to.match(/^-?\//);
        expect(one('Restart')).to.equal('on-failure');
        expect(one('User'), 'User').to.be.a('string').and.not.equal('root');
        expect(one('ExecStart'), 'ExecStart').to.match(/^\//);
        expect(one('PrivateTmp')).to.equal('yes');
        expect(service!.has('CapabilityBoundingSet'), 'CapabilityBoundingSet').to.equal(true);
      });
    }
  });

  describe('shell scripts', () => {
    for (const script of files.filter((f) => f.endsWith('.sh'))) {
      it(`${rel(script)} passes bash -n, is strict and executable`, () => {
        execFileSync('bash', ['-n', script], { stdio: 'pipe' });
        const code = readFileSync(script, 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
        expect(code[0], 'first statement').to.equal('set -euo pipefail');
        accessSync(script, constants.X_OK);
      });
    }
  });

  describe('node network policy', () => {
    const template = readFileSync(path.join(infra, 'network-policy/nftables.conf.tmpl'), 'utf8');
    const rules = template
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));

    it('drops everything not admitted', () => {
      expect(rules).to.include('type filter hook input priority filter; policy drop;');
      expect(rules).to.include('type filter hook forward priority filter; policy drop;');
    });

    it('admits the agent SSH port only from controllers and runtime ports only from gateways', () => {
      const admitting = (port: string) => rules.filter((l) => l.includes(port) && l.endsWith('accept'));
      expect(admitting('${LUNANEXA_AGENT_SSH_PORT}')).to.deep.equal([
        'tcp dport ${LUNANEXA_AGENT_SSH_PORT} ip saddr @controllers accept',
      ]);
      const runtime = admitting('${LUNANEXA_RUNTIME_PORTS}');
      expect(runtime).to.have.length.greaterThan(0);
      for (const rule of runtime) expect(rule).to.include('ip saddr @gateways');
    });
  });
});
