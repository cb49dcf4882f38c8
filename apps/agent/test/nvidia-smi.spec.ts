import { expect } from 'chai';
import {
  NVIDIA_SMI_QUERY_ARGS,
  NvidiaSmiParseError,
  nvidiaSmiValue,
  parseNvidiaSmiGpuCsv,
  parseNvidiaSmiSummary,
} from '../src/inventory/nvidia-smi';
import { fixture } from './support';

describe('nvidia-smi parsers', () => {
  it('runs exactly the documented query, no more', () => {
    expect(NVIDIA_SMI_QUERY_ARGS).to.deep.equal([
      '--query-gpu=index,name,uuid,memory.total,memory.used,memory.free,compute_cap,driver_version,mig.mode.current',
      '--format=csv,noheader,nounits',
    ]);
  });

  describe('nvidiaSmiValue', () => {
    for (const placeholder of [
      '[N/A]',
      'N/A',
      'Not Supported',
      '[Not Supported]',
      '[Unknown Error]',
      '[Insufficient Permissions]',
      ' [N/A] ',
      '',
    ]) {
      it(`reads ${JSON.stringify(placeholder)} as no value`, () => {
        expect(nvidiaSmiValue(placeholder)).to.equal(null);
      });
    }
    it('keeps real values, trimmed', () => {
      expect(nvidiaSmiValue(' 81559 ')).to.equal('81559');
      expect(nvidiaSmiValue('0')).to.equal('0');
    });
  });

  describe('--query-gpu CSV', () => {
    it('reads the GB10 capture: memory [N/A] stays unknown (null), never 0', () => {
      const rows = parseNvidiaSmiGpuCsv(fixture('gb10-query-gpu.csv'));
      expect(rows).to.deep.equal([
        {
          index: 0,
          name: 'NVIDIA GB10',
          uuid: 'GPU-6d5f0f1c-3e9b-b0c2-8f1a-2c7d9e4b5a61',
          memoryTotalMiB: null,
          memoryUsedMiB: null,
          memoryFreeMiB: null,
          computeCapability: '12.1',
          driverVersion: '580.95.05',
          migMode: null,
        },
      ]);
    });

    it('reads the 8x H100 capture with real memory figures', () => {
      const rows = parseNvidiaSmiGpuCsv(fixture('h100-8x-query-gpu.csv'));
      expect(rows.map((row) => row.index)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(new Set(rows.map((row) => row.uuid)).size).to.equal(8);
      for (const row of rows) {
        expect(row.name).to.equal('NVIDIA H100 80GB HBM3');
        expect(row.memoryTotalMiB).to.equal(81559);
        expect(row.computeCapability).to.equal('9.0');
        expect(row.migMode).to.equal('disabled');
      }
      expect(rows[3]).to.include({ memoryUsedMiB: 71263, memoryFreeMiB: 9741 });
    });

    it('reads MIG mode per GPU', () => {
      const rows = parseNvidiaSmiGpuCsv(fixture('h100-mig-query-gpu.csv'));
      expect(rows.map((row) => row.migMode)).to.deep.equal(['disabled', 'enabled']);
    });

    it('accepts CRLF and blank lines, and no GPUs at all', () => {
      const csv = fixture('h100-mig-query-gpu.csv').replace(/\n/g, '\r\n') + '\r\n\r\n';
      expect(parseNvidiaSmiGpuCsv(csv)).to.have.length(2);
      expect(parseNvidiaSmiGpuCsv('')).to.deep.equal([]);
    });

    it('refuses a row with the wrong number of columns instead of dropping the GPU', () => {
      expect(() => parseNvidiaSmiGpuCsv('0, NVIDIA GB10, [N/A], [N/A]\n')).to.throw(
        NvidiaSmiParseError,
        /line 1: expected 9 columns/,
      );
    });

    it('refuses memory that is neither a number nor a placeholder', () => {
      const row =
        '0, NVIDIA H100 80GB HBM3, GPU-2f8e4c1a-7b3d-9e05-a6c4-1d8f3b7e2a90, 81559 MiB, 0, 81004, 9.0, 550.54.15, Disabled';
      expect(() => parseNvidiaSmiGpuCsv(row)).to.throw(NvidiaSmiParseError, /memory.total/);
    });

    it('refuses an unknown MIG mode', () => {
      const row =
        '0, NVIDIA H100 80GB HBM3, GPU-2f8e4c1a-7b3d-9e05-a6c4-1d8f3b7e2a90, 81559, 0, 81004, 9.0, 550.54.15, Pending';
      expect(() => parseNvidiaSmiGpuCsv(row)).to.throw(NvidiaSmiParseError, /mig.mode.current/);
    });
  });

  describe('nvidia-smi banner', () => {
    it('reads driver and CUDA versions from the GB10 table whose memory says Not Supported', () => {
      expect(parseNvidiaSmiSummary(fixture('gb10-nvidia-smi.txt'))).to.deep.equal({
        driverVersion: '580.95.05',
        cudaVersion: '13.0',
      });
    });

    it('reads driver and CUDA versions from the 8x H100 table', () => {
      expect(parseNvidiaSmiSummary(fixture('h100-8x-nvidia-smi.txt'))).to.deep.equal({
        driverVersion: '550.54.15',
        cudaVersion: '12.4',
      });
    });

    it('refuses output without a banner (e.g. the driver error message)', () => {
      const failed = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n";
      expect(() => parseNvidiaSmiSummary(failed)).to.throw(NvidiaSmiParseError, /banner/);
    });
  });
});
