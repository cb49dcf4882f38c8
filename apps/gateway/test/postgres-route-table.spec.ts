import { expect } from 'chai';
import { endpointBaseUrl } from '../src/postgres-route-table';

describe('route endpoint URLs from node addresses', () => {
  it('uses IPv4 addresses and host names as they are', () => {
    expect(endpointBaseUrl('10.0.0.11', 41001)).to.equal('http://10.0.0.11:41001');
    expect(endpointBaseUrl('gpu-a.fleet.internal', 8000)).to.equal('http://gpu-a.fleet.internal:8000');
  });

  it('brackets IPv6 literals and leaves bracketed ones alone', () => {
    expect(endpointBaseUrl('fd00::12', 41002)).to.equal('http://[fd00::12]:41002');
    expect(endpointBaseUrl('[fd00::12]', 41002)).to.equal('http://[fd00::12]:41002');
    expect(new URL(endpointBaseUrl('fd00::12', 41002)).port).to.equal('41002');
  });
});
