import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { EXIT_CONFIG } from '@lunanexa/observability';
import { loadWorkerConfig } from '../src/config';

describe('worker configuration', function () {
  this.timeout(30_000);
  it('fills defaults from a minimal environment', () => {
    expect(loadWorkerConfig({ DATABASE_URL: 'postgres://u@h/db' })).to.include({
      LUNANEXA_TASK_QUEUE: 'lunanexa-control',
      LUNANEXA_WORKER_PORT: 4300,
      LUNANEXA_WORKER_NICE: 10,
    });
  });

  it('takes a nice value from 0 to 19 and names any other', () => {
    const base = { DATABASE_URL: 'postgres://u@h/db' };
    expect(loadWorkerConfig({ ...base, LUNANEXA_WORKER_NICE: '0' }).LUNANEXA_WORKER_NICE).to.equal(0);
    expect(loadWorkerConfig({ ...base, LUNANEXA_WORKER_NICE: '19' }).LUNANEXA_WORKER_NICE).to.equal(19);
    for (const bad of ['20', '-1', '2.5', 'low'])
      expect(() => loadWorkerConfig({ ...base, LUNANEXA_WORKER_NICE: bad }), bad).to.throw(
        /LUNANEXA_WORKER_NICE: must be a whole number from 0 to 19/,
      );
  });

  it('the process exits 78 naming a missing DATABASE_URL and a bad TEMPORAL_ADDRESS', () => {
    const result = spawnSync(process.execPath, [join(__dirname, '..', 'src', 'main.js')], {
      env: { PATH: process.env['PATH'] ?? '', TEMPORAL_ADDRESS: 'localhost' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).to.equal(EXIT_CONFIG);
    expect(result.stderr).to.match(/DATABASE_URL: /);
    expect(result.stderr).to.match(/TEMPORAL_ADDRESS: must be host:port/);
  });
});
