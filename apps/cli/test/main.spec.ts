import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { closedPort } from './support';

const MAIN = join(__dirname, '..', 'src', 'main.js');

describe('lunanexa executable', function () {
  this.timeout(20_000);

  it('is a node script (bin target)', () => {
    expect(readFileSync(MAIN, 'utf8').split('\n')[0]).to.equal('#!/usr/bin/env node');
  });

  it('exits 64 for a bad --api-url', () => {
    const result = spawnSync(process.execPath, [MAIN, '--api-url', 'not a url', 'status'], {
      encoding: 'utf8',
    });
    expect(result.status).to.equal(64);
    expect(result.stderr).to.match(/^error\[USAGE\]: --api-url "not a url" is not an absolute URL/);
  });

  it('exits 0 for version and 69 for status when the API is down', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const env = { ...process.env, LUNANEXA_API_URL: url };
    const version = spawnSync(process.execPath, [MAIN, 'version'], { encoding: 'utf8', env });
    expect(version.status).to.equal(0);
    expect(version.stdout).to.contain('unreachable');
    const status = spawnSync(process.execPath, [MAIN, 'status'], { encoding: 'utf8', env });
    expect(status.status).to.equal(69);
  });
});
