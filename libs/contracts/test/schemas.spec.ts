import { expect } from 'chai';
import type { z } from 'zod';
import { ArtifactSchema } from '../src/artifact';
import { AuditEventSchema } from '../src/audit';
import { DigestSchema, IsoTimestampSchema } from '../src/common';
import { AssignmentSchema, DeploymentSchema } from '../src/deployment';
import { ERROR_CODES, HTTP_STATUS_BY_CODE, LunaNexaError } from '../src/errors';
import { FIXTURE_SCHEMAS } from '../src/fixtures';
import { compareComputeCapability, CompatibleHardwareSchema } from '../src/hardware';
import { LicenseSchema } from '../src/license';
import {
  DEPLOYMENT_STATES,
  MODEL_VERSION_STATES,
  NODE_LIFECYCLE_STATES,
  NODE_READINESS,
  WORKLOAD_STATES,
} from '../src/lifecycle';
import { GpuInventorySchema, NodeInventorySchema, NodeLabelsSchema, NodeSchema } from '../src/node';
import { ProblemDetailsSchema } from '../src/problem';
import { RuntimeSchema } from '../src/runtime';
import { GpuTelemetrySchema, HeartbeatSchema } from '../src/telemetry';
import { UsageSchema } from '../src/usage';
import { WorkloadRequestSchema } from '../src/workload';
import { fixture } from './helpers';

type Json = Record<string, unknown>;

function obj(name: string): Json {
  return fixture(name) as Json;
}

function expectRejected(schema: z.ZodType, value: unknown, path?: (string | number)[]): void {
  const result = schema.safeParse(value);
  expect(result.success, 'expected the value to be rejected').to.equal(false);
  if (path !== undefined && !result.success) {
    expect(result.error.issues.map((issue) => issue.path)).to.deep.include(path);
  }
}

/**
 * Fixtures whose top level deliberately tolerates unknown members: records
 * (labels) and OpenAI responses/chunks, which runtimes extend with vendor
 * fields (see openai.ts).
 */
const LENIENT_FIXTURES = new Set([
  'node-labels.json',
  'openai-chat-chunk.first.json',
  'openai-chat-chunk.usage.json',
  'openai-chat-response.json',
  'openai-completion-chunk.json',
  'openai-completion-response.json',
]);

describe('v1 schemas', () => {
  describe('strictness', () => {
    for (const name of Object.keys(FIXTURE_SCHEMAS).filter((file) => !LENIENT_FIXTURES.has(file))) {
      it(`${name}: rejects an unknown top-level member`, () => {
        const schema = FIXTURE_SCHEMAS[name];
        const result = schema.safeParse({ ...obj(name), unexpectedMember: 1 });
        expect(result.success).to.equal(false);
        if (!result.success)
          expect(result.error.issues.map((issue) => issue.code)).to.include('unrecognized_keys');
      });
    }

    it('rejects unknown members in nested objects too', () => {
      const node = obj('node.gb10.json');
      const inventory = node['inventory'] as Json;
      expectRejected(NodeSchema, {
        ...node,
        inventory: { ...inventory, cpu: { ...(inventory['cpu'] as Json), sockets: 1 } },
      });
    });

    it('drops vendor members of OpenAI responses instead of failing', () => {
      const parsed = FIXTURE_SCHEMAS['openai-chat-response.json'].parse({
        ...obj('openai-chat-response.json'),
        system_fingerprint: 'fp_x',
      });
      expect(parsed).to.not.have.property('system_fingerprint');
    });
  });

  describe('common fields', () => {
    it('accepts only sha256 digests in lower-case hex', () => {
      expect(DigestSchema.safeParse(`sha256:${'a'.repeat(64)}`).success).to.equal(true);
      for (const bad of [
        `sha256:${'A'.repeat(64)}`,
        `sha256:${'a'.repeat(63)}`,
        `md5:${'a'.repeat(32)}`,
        'a'.repeat(64),
        `sha256:${'g'.repeat(64)}`,
      ]) {
        expect(DigestSchema.safeParse(bad).success, bad).to.equal(false);
      }
      expectRejected(ArtifactSchema, { ...obj('artifact.json'), digest: 'sha256:1234' }, ['digest']);
    });

    it('accepts UTC timestamps only', () => {
      expect(IsoTimestampSchema.safeParse('2025-11-20T09:14:05Z').success).to.equal(true);
      expect(IsoTimestampSchema.safeParse('2025-11-20T09:14:05.123Z').success).to.equal(true);
      expect(IsoTimestampSchema.safeParse('2025-11-20T10:14:05+01:00').success).to.equal(false);
      expect(IsoTimestampSchema.safeParse('2025-11-20').success).to.equal(false);
    });

    it('refuses plain-http artifact URIs', () => {
      expectRejected(
        ArtifactSchema,
        { ...obj('artifact.json'), uri: 'http://store.local/model.safetensors' },
        ['uri'],
      );
    });
  });

  describe('node inventory', () => {
    const gb10 = obj('gpu-inventory.gb10-unified.json');
    const h100 = obj('gpu-inventory.h100-discrete.json');

    it('rejects an NVML source without a total (the GB10 misreading)', () => {
      expectRejected(
        GpuInventorySchema,
        { ...gb10, memorySource: 'nvml', totalMemoryBytes: null, freeMemoryBytes: null },
        ['totalMemoryBytes'],
      );
    });

    it('rejects a /proc/meminfo source without a total (unified memory is sized by MemTotal)', () => {
      expectRejected(GpuInventorySchema, { ...gb10, totalMemoryBytes: null, freeMemoryBytes: null }, [
        'totalMemoryBytes',
      ]);
    });

    it('rejects a unified GPU total that differs from the node MemTotal', () => {
      const inventory = obj('node-inventory.gb10-unified.json');
      const gpus = inventory['gpus'] as Record<string, unknown>[];
      const skewed = {
        ...inventory,
        gpus: [{ ...gpus[0], totalMemoryBytes: 64 * 1024 ** 3, freeMemoryBytes: 0 }],
      };
      expectRejected(NodeInventorySchema, skewed, ['gpus', 0, 'totalMemoryBytes']);
    });

    it('rejects /proc/meminfo as the source for a discrete GPU', () => {
      expectRejected(GpuInventorySchema, { ...h100, memorySource: 'proc-meminfo' }, ['memorySource']);
    });

    it('rejects free memory above total', () => {
      expectRejected(
        GpuInventorySchema,
        { ...h100, freeMemoryBytes: (h100['totalMemoryBytes'] as number) + 1 },
        ['freeMemoryBytes'],
      );
    });

    it('rejects fractional or negative byte counts', () => {
      expectRejected(GpuInventorySchema, { ...h100, totalMemoryBytes: 1.5 });
      expectRejected(GpuInventorySchema, { ...h100, freeMemoryBytes: -1 });
    });

    it('rejects malformed GPU UUIDs and compute capabilities', () => {
      expectRejected(GpuInventorySchema, { ...gb10, uuid: 'GPU-0' }, ['uuid']);
      expectRejected(GpuInventorySchema, { ...gb10, computeCapability: 'sm_121' }, ['computeCapability']);
    });

    it('rejects duplicate GPUs in one inventory', () => {
      const inventory = obj('node-inventory.h100-discrete.json');
      const gpus = inventory['gpus'] as Json[];
      expectRejected(
        NodeInventorySchema,
        { ...inventory, gpus: [gpus[0], { ...gpus[1], uuid: gpus[0]['uuid'] }] },
        ['gpus', 1, 'uuid'],
      );
    });

    it('rejects available system memory above total', () => {
      const inventory = obj('node-inventory.gb10-unified.json');
      const memory = inventory['systemMemory'] as Json;
      expectRejected(NodeInventorySchema, {
        ...inventory,
        systemMemory: { ...memory, availableBytes: (memory['totalBytes'] as number) + 1 },
      });
    });

    it('validates label keys and values', () => {
      expect(NodeLabelsSchema.safeParse({ 'lunanexa.io/zone': 'a', plain: '' }).success).to.equal(true);
      expect(NodeLabelsSchema.safeParse({ 'has space': 'x' }).success).to.equal(false);
      expect(NodeLabelsSchema.safeParse({ ok: 'trailing-' }).success).to.equal(false);
      expect(NodeLabelsSchema.safeParse({ ok: 'x'.repeat(64) }).success).to.equal(false);
      const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
      expect(NodeLabelsSchema.safeParse(many).success).to.equal(false);
    });
  });

  describe('runtime launch spec', () => {
    const vllm = obj('runtime.vllm-container.json');
    const fake = obj('runtime.fake-binary.json');
    const withLaunch = (runtime: Json, change: Json): Json => ({
      ...runtime,
      launch: { ...(runtime['launch'] as Json), ...change },
    });

    for (const shell of ['bash', '/bin/sh', '/usr/bin/env', 'busybox']) {
      it(`refuses ${shell} as the executable`, () => {
        expectRejected(RuntimeSchema, withLaunch(vllm, { executable: shell }), ['launch', 'executable']);
      });
    }

    it('refuses a command line smuggled into the executable', () => {
      expectRejected(RuntimeSchema, withLaunch(vllm, { executable: 'vllm serve x; rm -rf /' }), [
        'launch',
        'executable',
      ]);
    });

    it('refuses interpreter inline-code flags but allows modules', () => {
      expectRejected(RuntimeSchema, withLaunch(vllm, { executable: 'python3', args: ['-c', 'import os'] }), [
        'launch',
        'args',
        0,
      ]);
      expect(
        RuntimeSchema.safeParse(
          withLaunch(vllm, { executable: 'python3', args: ['-m', 'vllm.entrypoints.openai.api_server'] }),
        ).success,
      ).to.equal(true);
    });

    it('refuses unknown placeholders', () => {
      expectRejected(
        RuntimeSchema,
        withLaunch(fake, { args: ['--port', '{{port}}', '--token', '{{callerToken}}'] }),
        ['launch', 'args', 3],
      );
    });

    it('requires {{port}} and no container port for binaries, a container port for containers', () => {
      expectRejected(RuntimeSchema, withLaunch(fake, { args: ['--port', '9000'] }), ['launch', 'args']);
      expectRejected(RuntimeSchema, withLaunch(fake, { containerPort: 9000 }), ['launch', 'containerPort']);
      expectRejected(RuntimeSchema, withLaunch(vllm, { containerPort: null }), ['launch', 'containerPort']);
    });

    it('refuses lower-case environment variable names', () => {
      expectRejected(RuntimeSchema, withLaunch(vllm, { envAllowlist: ['cuda_visible_devices'] }));
    });
  });

  describe('assignments and deployments', () => {
    it('refuses env values outside the runtime allowlist', () => {
      const assignment = obj('assignment.json');
      expectRejected(AssignmentSchema, { ...assignment, env: { LD_PRELOAD: '/tmp/x.so' } }, [
        'env',
        'LD_PRELOAD',
      ]);
    });

    it('refuses an observed generation ahead of the desired one', () => {
      expectRejected(DeploymentSchema, { ...obj('deployment.json'), observedGeneration: 4 }, [
        'observedGeneration',
      ]);
    });

    it('refuses more ready than observed replicas', () => {
      expectRejected(DeploymentSchema, { ...obj('deployment.json'), readyReplicas: 3 }, ['readyReplicas']);
    });
  });

  describe('hardware declarations', () => {
    it('compares compute capabilities numerically', () => {
      expect(compareComputeCapability('12.1', '9.0')).to.be.greaterThan(0);
      expect(compareComputeCapability('8.9', '8.10')).to.be.lessThan(0);
      expect(compareComputeCapability('12.1', '12.1')).to.equal(0);
    });

    it('refuses a maximum below the minimum', () => {
      expectRejected(
        CompatibleHardwareSchema,
        {
          ...obj('compatible-hardware.gb10.json'),
          minComputeCapability: '12.0',
          maxComputeCapability: '9.0',
        },
        ['maxComputeCapability'],
      );
    });

    it('refuses duplicate architectures', () => {
      expectRejected(CompatibleHardwareSchema, {
        ...obj('compatible-hardware.gb10.json'),
        architectures: ['arm64', 'arm64'],
      });
    });
  });

  describe('licenses', () => {
    it('requires a decider exactly when decided', () => {
      const approved = obj('license.spdx.json');
      const approval = approved['approval'] as Json;
      expectRejected(LicenseSchema, { ...approved, approval: { ...approval, decidedBy: null } });
      const pending = obj('license.custom.json');
      expectRejected(LicenseSchema, {
        ...pending,
        approval: { ...(pending['approval'] as Json), decidedBy: 'operator-x' },
      });
    });

    it('discriminates on kind', () => {
      expectRejected(LicenseSchema, { ...obj('license.spdx.json'), kind: 'custom' });
    });
  });

  describe('workloads', () => {
    const chat = obj('workload-request.chat.json');

    it('applies documented defaults to a minimal request', () => {
      const parsed = WorkloadRequestSchema.parse({
        apiVersion: 'lunanexa.v1',
        kind: 'chat',
        target: { alias: 'chat-default' },
        messages: [{ role: 'user', content: 'hi' }],
        dataClass: 'public',
      });
      expect(parsed.stream).to.equal(false);
      expect(parsed.priority).to.equal('normal');
      expect(parsed.parameters).to.deep.equal({});
      expect(parsed.correlation).to.deep.equal({});
    });

    it('requires a data class', () => {
      const { dataClass: _dropped, ...rest } = chat;
      void _dropped;
      expectRejected(WorkloadRequestSchema, rest, ['dataClass']);
    });

    it('refuses a prompt on a chat workload and messages on a completion', () => {
      expectRejected(WorkloadRequestSchema, { ...chat, prompt: 'x' });
      expectRejected(WorkloadRequestSchema, {
        ...obj('workload-request.completion-pinned.json'),
        messages: chat['messages'],
      });
    });

    it('refuses a target naming both an alias and a model', () => {
      expectRejected(WorkloadRequestSchema, { ...chat, target: { alias: 'chat-default', model: 'llama@1' } });
    });

    it('refuses an unpinned model target', () => {
      expectRejected(WorkloadRequestSchema, { ...chat, target: { model: 'llama-3-1-8b-instruct' } });
    });

    it('refuses deadlines beyond one hour and out-of-range sampling', () => {
      expectRejected(WorkloadRequestSchema, { ...chat, deadlineMs: 3_600_001 }, ['deadlineMs']);
      expectRejected(WorkloadRequestSchema, { ...chat, parameters: { temperature: 2.5 } }, [
        'parameters',
        'temperature',
      ]);
      expectRejected(WorkloadRequestSchema, { ...chat, parameters: { topP: 0 } }, ['parameters', 'topP']);
    });

    it('refuses caller ids that are not opaque ids', () => {
      expectRejected(WorkloadRequestSchema, {
        ...chat,
        correlation: { tenantId: 'Acme Corp <ceo@acme.example>' },
      });
    });

    it('refuses inconsistent usage totals', () => {
      expectRejected(UsageSchema, { promptTokens: 1, completionTokens: 2, totalTokens: 4 }, ['totalTokens']);
    });
  });

  describe('heartbeats and audit', () => {
    it('refuses a short nonce', () => {
      expectRejected(HeartbeatSchema, { ...obj('heartbeat.json'), nonce: 'abc' }, ['nonce']);
    });

    it('carries the inventory or its digest, exactly one', () => {
      const { inventory: _inventory, ...withoutInventory } = obj('heartbeat.json');
      const digest = `sha256:${'a'.repeat(64)}`;
      expect(HeartbeatSchema.safeParse({ ...withoutInventory, inventoryDigest: digest }).success).to.equal(
        true,
      );
      expectRejected(HeartbeatSchema, withoutInventory, ['inventory']);
      expectRejected(HeartbeatSchema, { ...obj('heartbeat.json'), inventoryDigest: digest }, ['inventory']);
      expectRejected(HeartbeatSchema, { ...withoutInventory, inventoryDigest: 'sha256:short' }, [
        'inventoryDigest',
      ]);
    });

    it("still accepts a v1.0 agent's GPU telemetry (no memory, throttle, ECC, Xid or lost fields)", () => {
      const legacy = (obj('heartbeat.json')['gpuTelemetry'] as Json[])[0];
      expect(Object.keys(legacy ?? {}).sort()).to.deep.equal([
        'powerWatts',
        'processes',
        'temperatureCelsius',
        'utilizationPercent',
        'uuid',
      ]);
      expect(GpuTelemetrySchema.safeParse(legacy).success).to.equal(true);
    });

    it('carries a lost GPU with null figures, its Xid and every field of a healthy one', () => {
      const [healthy, lost] = HeartbeatSchema.parse(obj('heartbeat.h100-telemetry.json')).gpuTelemetry;
      expect(healthy?.memorySource).to.equal('nvml');
      expect(healthy?.throttleReasons).to.deep.equal(['SwPowerCap']);
      expect(lost?.lost).to.equal(true);
      expect(lost?.lastXid).to.equal(79);
      expect(lost?.utilizationPercent).to.equal(null);
    });

    it('refuses GPU telemetry that contradicts itself or names an unknown throttle reason', () => {
      const [healthy] = obj('heartbeat.h100-telemetry.json')['gpuTelemetry'] as Json[];
      expectRejected(GpuTelemetrySchema, { ...healthy, memoryUsedBytes: 90_000_000_000 }, [
        'memoryUsedBytes',
      ]);
      expectRejected(GpuTelemetrySchema, { ...healthy, memorySource: null }, ['memorySource']);
      expectRejected(GpuTelemetrySchema, { ...healthy, throttleReasons: ['TooHot'] }, ['throttleReasons', 0]);
      expectRejected(GpuTelemetrySchema, { ...healthy, eccUncorrectedErrors: -1 }, ['eccUncorrectedErrors']);
      expectRejected(GpuTelemetrySchema, { ...healthy, xid: 79 });
    });

    it('ties prevHash to the chain start', () => {
      const genesis = obj('audit-event.genesis.json');
      expectRejected(AuditEventSchema, { ...genesis, prevHash: `sha256:${'0'.repeat(64)}` }, ['prevHash']);
      expectRejected(AuditEventSchema, { ...obj('audit-event.chained.json'), prevHash: null }, ['prevHash']);
    });

    it('refuses a denied decision that succeeded', () => {
      const event = obj('audit-event.chained.json');
      expectRejected(
        AuditEventSchema,
        { ...event, decision: { ...(event['decision'] as Json), outcome: 'denied' } },
        ['result', 'outcome'],
      );
    });

    it('requires an error code exactly when the result is not a success', () => {
      const event = obj('audit-event.chained.json');
      expectRejected(AuditEventSchema, { ...event, result: { outcome: 'failed', errorCode: null } });
      expectRejected(AuditEventSchema, { ...event, result: { outcome: 'succeeded', errorCode: 'INTERNAL' } });
    });
  });

  describe('errors and lifecycle vocabulary', () => {
    it('produces a schema-valid problem body for every error code', () => {
      for (const code of ERROR_CODES) {
        const problem = new LunaNexaError(code, 'x').toProblem({ requestId: 'r1' });
        expect(ProblemDetailsSchema.safeParse(problem).success, code).to.equal(true);
        expect(problem.status).to.equal(HTTP_STATUS_BY_CODE[code]);
      }
    });

    it('maps the data-plane additions to their HTTP statuses', () => {
      expect(HTTP_STATUS_BY_CODE.PAYLOAD_TOO_LARGE).to.equal(413);
      expect(HTTP_STATUS_BY_CODE.METHOD_NOT_ALLOWED).to.equal(405);
    });

    it('has no duplicate state names and keeps readiness out of the node lifecycle', () => {
      for (const list of [
        NODE_LIFECYCLE_STATES,
        NODE_READINESS,
        MODEL_VERSION_STATES,
        DEPLOYMENT_STATES,
        WORKLOAD_STATES,
      ]) {
        expect(new Set(list).size).to.equal(list.length);
      }
      for (const readiness of NODE_READINESS) {
        expect(NODE_LIFECYCLE_STATES).to.not.include(readiness);
      }
    });
  });
});
