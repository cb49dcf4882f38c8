import type { MessageType } from './protocol';

/** Golden envelopes, relative to the package root (`libs/agent-protocol`). */
export const AGENT_PROTOCOL_FIXTURES_DIR = 'fixtures/v1';

/**
 * Every golden envelope file and the message type it holds. Controller
 * messages are signed with the committed test controller key, agent messages
 * with the test node key (`test/keys/`, test-only). The fixture test fails for
 * a file without an entry, an entry without a file, and a type without a file.
 */
export const AGENT_PROTOCOL_FIXTURES: Readonly<Record<string, MessageType>> = {
  'assignment-put.json': 'assignment.put',
  'assignment-ack.json': 'assignment.ack',
  'assignment-reject.stale-generation.json': 'assignment.reject',
  'status-get.json': 'status.get',
  'status-report.json': 'status.report',
  'error.malformed-frame.json': 'error',
  'enroll-request.json': 'enroll.request',
  'enroll-response.json': 'enroll.response',
  'heartbeat.json': 'heartbeat',
  'heartbeat-ack.json': 'heartbeat.ack',
};
