import { canonicalJson } from '@lunanexa/contracts';
import { expect } from 'chai';
import { EnvelopeSchema, ENVELOPE_SCHEMAS } from '../src/envelope';
import { AGENT_PROTOCOL_FIXTURES } from '../src/fixtures';
import { assignmentSpecDigest } from '../src/fence';
import {
  AGENT_HTTP_MESSAGE_TYPES,
  AGENT_MESSAGE_TYPES,
  CONTROLLER_SIGNED_TYPES,
  MESSAGE_TYPES,
} from '../src/protocol';
import { signEnvelope, verifyEnvelope } from '../src/signing';
import {
  TEST_CONTROLLER_KEY_ID,
  TEST_NODE_KEY_ID,
  fixture,
  fixtureFiles,
  fixtureText,
  publicOf,
  testPrivateKey,
} from './support';

describe('agent protocol golden fixtures v1', () => {
  const files = fixtureFiles();
  const registered = Object.keys(AGENT_PROTOCOL_FIXTURES).sort();
  const controller = testPrivateKey('controller');
  const node = testPrivateKey('node');
  const trusted = new Map([
    [TEST_CONTROLLER_KEY_ID, publicOf(controller)],
    [TEST_NODE_KEY_ID, publicOf(node)],
  ]);

  it('registers every fixture file, and has a file for every entry', () => {
    expect(files.length).to.be.greaterThan(0);
    expect(files.filter((file) => !(file in AGENT_PROTOCOL_FIXTURES))).to.deep.equal([]);
    expect(registered.filter((file) => !files.includes(file))).to.deep.equal([]);
  });

  it('has at least one fixture per message type', () => {
    expect([...new Set(Object.values(AGENT_PROTOCOL_FIXTURES))].sort()).to.deep.equal(
      [...MESSAGE_TYPES].sort(),
    );
  });

  for (const name of registered) {
    const type = AGENT_PROTOCOL_FIXTURES[name] ?? 'error';

    it(`${name}: parses as ${type} and re-serialises to the same bytes`, () => {
      const text = fixtureText(name);
      const parsed = ENVELOPE_SCHEMAS[type].parse(JSON.parse(text));
      expect(parsed.type).to.equal(type);
      expect(canonicalJson(parsed)).to.equal(text);
      expect(canonicalJson(EnvelopeSchema.parse(JSON.parse(text)))).to.equal(text);
    });

    it(`${name}: verifies with the test key of its sender, and re-signing gives the same bytes`, () => {
      const envelope = EnvelopeSchema.parse(fixture(name));
      const fromController = CONTROLLER_SIGNED_TYPES.includes(type);
      const fromAgent = [...AGENT_MESSAGE_TYPES, ...AGENT_HTTP_MESSAGE_TYPES].includes(type as never);
      expect(fromController !== fromAgent, `${type} has exactly one signer`).to.equal(true);
      expect(envelope.signature.keyId).to.equal(fromController ? TEST_CONTROLLER_KEY_ID : TEST_NODE_KEY_ID);
      const verified = verifyEnvelope(trusted, fixture(name), { now: new Date(envelope.issuedAt) });
      expect(verified).to.deep.equal(envelope);
      // Ed25519 is deterministic: signing the unsigned part again reproduces the file byte for byte.
      const { signature, ...unsigned } = envelope;
      const resigned = signEnvelope(fromController ? controller : node, signature.keyId, unsigned);
      expect(canonicalJson(resigned)).to.equal(fixtureText(name));
    });
  }

  it('ack and report carry the spec digest of the put assignment', () => {
    const put = ENVELOPE_SCHEMAS['assignment.put'].parse(fixture('assignment-put.json'));
    const ack = ENVELOPE_SCHEMAS['assignment.ack'].parse(fixture('assignment-ack.json'));
    const report = ENVELOPE_SCHEMAS['status.report'].parse(fixture('status-report.json'));
    const digest = assignmentSpecDigest(put.body.assignment);
    expect(ack.body).to.deep.include({ inReplyTo: put.id, specDigest: digest, generation: 3 });
    expect(report.body.assignments[0]?.specDigest).to.equal(digest);
  });
});
