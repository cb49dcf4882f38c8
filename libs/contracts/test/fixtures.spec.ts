import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { auditHashInput, AuditEventSchema, type AuditEvent } from '../src/audit';
import { canonicalJson } from '../src/canonical-json';
import { FIXTURE_SCHEMAS } from '../src/fixtures';
import { NodeInventorySchema } from '../src/node';
import { fixture, fixtureFiles, fixtureText } from './helpers';

describe('golden fixtures v1', () => {
  const files = fixtureFiles();
  const registered = Object.keys(FIXTURE_SCHEMAS).sort();

  it('has a fixture folder with only .json files', () => {
    expect(files.length).to.be.greaterThan(0);
    expect(files.filter((file) => !file.endsWith('.json'))).to.deep.equal([]);
  });

  it('registers a schema for every fixture file', () => {
    expect(
      files.filter((file) => !(file in FIXTURE_SCHEMAS)),
      'fixture files without a FIXTURE_SCHEMAS entry',
    ).to.deep.equal([]);
  });

  it('has a fixture file for every registered schema', () => {
    expect(
      registered.filter((name) => !files.includes(name)),
      'FIXTURE_SCHEMAS entries without a file',
    ).to.deep.equal([]);
  });

  for (const name of registered) {
    it(`${name}: parses and re-serialises to the same bytes`, () => {
      const schema = FIXTURE_SCHEMAS[name];
      expect(schema, name).to.not.equal(undefined);
      const text = fixtureText(name);
      const parsed = schema.parse(JSON.parse(text));
      expect(canonicalJson(parsed)).to.equal(text);
    });
  }

  it('audit fixtures form a valid hash chain', () => {
    const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
    const genesis: AuditEvent = AuditEventSchema.parse(fixture('audit-event.genesis.json'));
    const chained: AuditEvent = AuditEventSchema.parse(fixture('audit-event.chained.json'));
    expect(genesis.hash).to.equal(sha(auditHashInput(genesis)));
    expect(chained.hash).to.equal(sha(auditHashInput(chained)));
    expect(chained.prevHash).to.equal(genesis.hash);
    expect(chained.seq).to.equal(genesis.seq + 1);
  });

  it('sizes the GB10 (which NVML reports as [N/A]) from /proc/meminfo: a 128 GB unified GPU, never zero', () => {
    const inventory = NodeInventorySchema.parse(fixture('node-inventory.gb10-unified.json'));
    const gpu = inventory.gpus[0];
    expect(gpu?.memoryModel).to.equal('unified');
    expect(gpu?.memorySource).to.equal('proc-meminfo');
    expect(gpu?.totalMemoryBytes).to.equal(inventory.systemMemory.totalBytes);
    expect(gpu?.freeMemoryBytes).to.equal(inventory.systemMemory.availableBytes);
    // MemTotal 127,600,748 kB as HARDWARE.md records it, in bytes.
    expect(inventory.systemMemory.totalBytes).to.equal(127_600_748 * 1024);
  });
});
