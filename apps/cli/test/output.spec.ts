import { expect } from 'chai';
import { renderStatus } from '../src/commands/status';
import { formatFields, formatTable } from '../src/output';
import { DEGRADED } from './support';

describe('CLI output formatting', () => {
  it('aligns table columns on the widest cell and trims trailing spaces', () => {
    expect(
      formatTable(
        ['CHECK', 'STATUS', 'DETAIL'],
        [
          ['postgresql', 'ok', ''],
          ['temporal', 'failing', 'timeout'],
        ],
      ),
    ).to.equal('CHECK       STATUS   DETAIL\npostgresql  ok\ntemporal    failing  timeout\n');
  });

  it('aligns key/value fields', () => {
    expect(
      formatFields([
        ['api', 'x'],
        ['version', '1'],
      ]),
    ).to.equal('api      x\nversion  1\n');
  });

  it('renders a not-ready status with the reason, code and request id, and each check', () => {
    const text = renderStatus(
      'http://127.0.0.1:4000',
      {
        ready: false,
        code: 'DEPENDENCY_UNAVAILABLE',
        reason: 'not ready: temporal failing',
        requestId: 'req-7',
      },
      DEGRADED.data.health,
    );
    expect(text).to.equal(
      [
        'api      http://127.0.0.1:4000',
        'ready    no: not ready: temporal failing (DEPENDENCY_UNAVAILABLE, request req-7)',
        'health   degraded',
        'version  0.1.0 (commit 4f2a9c1)',
        '',
        'CHECK       STATUS   LATENCY  DETAIL',
        'postgresql  ok       1.1 ms',
        'temporal    failing  -        no answer within 3000 ms',
        '',
      ].join('\n'),
    );
  });
});
