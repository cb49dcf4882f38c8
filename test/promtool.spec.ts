import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * The alert rules, their unit tests (`alerts.test.yml`) and the scrape config, checked by Prometheus' own
 * `promtool` (Debian's `prometheus` package; `npm test` installs it with apt-get when it is missing and may).
 * LUNANEXA_PROMTOOL names another binary.
 */
const PROMTOOL = process.env['LUNANEXA_PROMTOOL'] ?? 'promtool';
const prometheusDir = path.resolve(__dirname, '..', '..', 'infra', 'prometheus');

function promtool(...args: string[]): string {
  const run = spawnSync(PROMTOOL, args, { cwd: prometheusDir, encoding: 'utf8', timeout: 60_000 });
  if (run.error)
    throw new Error(`${PROMTOOL} could not run (${run.error.message}); install Debian's prometheus`);
  const output = `${run.stdout}${run.stderr}`;
  expect(run.status, output).to.equal(0);
  return output;
}

describe('infra/prometheus under promtool', function () {
  // Rule tests evaluate a day of one-minute samples: seconds, not milliseconds.
  this.timeout(60_000);

  it('promtool check rules: alerts.yml is valid', () => {
    expect(promtool('check', 'rules', 'alerts.yml')).to.match(/SUCCESS: \d+ rules found/);
  });

  it('promtool test rules: every alert fires and stays quiet as alerts.test.yml expects', () => {
    expect(promtool('test', 'rules', 'alerts.test.yml')).to.contain('SUCCESS');
  });

  it('promtool check config: prometheus.yml, its rule files and target files load', () => {
    expect(promtool('check', 'config', 'prometheus.yml')).to.contain('SUCCESS');
  });
});
