import { expect } from 'chai';
import { MeminfoParseError, parseMeminfo } from '../src/inventory/meminfo';
import { GB10_MEM_AVAILABLE_BYTES, GB10_MEM_TOTAL_BYTES, fixture } from './support';

describe('parseMeminfo', () => {
  it('reads MemTotal and MemAvailable of the GB10 capture in bytes (kB means KiB)', () => {
    expect(parseMeminfo(fixture('gb10-proc-meminfo.txt'))).to.deep.equal({
      memTotalBytes: GB10_MEM_TOTAL_BYTES,
      memAvailableBytes: GB10_MEM_AVAILABLE_BYTES,
    });
  });

  it('uses MemAvailable, not MemFree, as the free figure', () => {
    const { memAvailableBytes } = parseMeminfo(fixture('gb10-proc-meminfo.txt'));
    expect(memAvailableBytes).to.not.equal(98_214_520 * 1024);
  });

  it('refuses meminfo without MemAvailable', () => {
    expect(() => parseMeminfo('MemTotal:       127600748 kB\nMemFree:        98214520 kB\n')).to.throw(
      MeminfoParseError,
    );
  });

  it('refuses a zero MemTotal rather than reporting an empty node', () => {
    expect(() => parseMeminfo('MemTotal:       0 kB\nMemAvailable:   0 kB\n')).to.throw(
      MeminfoParseError,
      /MemTotal 0/,
    );
  });
});
