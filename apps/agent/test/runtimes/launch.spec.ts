import { expect } from 'chai';
import { ErrorCode } from '@lunanexa/contracts';
import {
  RuntimeError,
  binaryEnv,
  containerLaunch,
  containerName,
  containerStopArgs,
  endpointFor,
  renderArgs,
  runtimeSpecFromAssignment,
  validateRuntimeSpec,
  type AssignedRuntime,
  type RuntimeErrorReason,
  type RuntimeSpec,
} from '../../src/runtimes';
import { ASSIGNMENT, FAKE_RECORD, VLLM_RECORD, assignedRuntime, specFor } from './support';

function refusal(action: () => unknown): RuntimeError {
  try {
    action();
  } catch (error: unknown) {
    if (error instanceof RuntimeError) return error;
    throw error;
  }
  throw new Error('expected a RuntimeError');
}

function expectRefused(action: () => unknown, reason: RuntimeErrorReason, paths: string[] = []): void {
  const error = refusal(action);
  expect(error.reason).to.equal(reason);
  for (const path of paths) expect(error.violations.map((violation) => violation.path)).to.include(path);
}

const MODEL_PATH = '/var/lib/lunanexa-agent/artifacts/sha256-9f2c/model.safetensors';

/** The fake fixture, relabelled openai-compatible, with a launch spec under test. */
function withLaunch(launch: Partial<AssignedRuntime['launch']>): AssignedRuntime {
  const runtime = assignedRuntime(FAKE_RECORD());
  return { ...runtime, kind: 'openai-compatible', launch: { ...runtime.launch, ...launch } };
}

describe('runtime launch planning', () => {
  describe('validation before anything is spawned', () => {
    it('refuses shells and command launchers by the contract schema', () => {
      for (const executable of ['sh', '/bin/sh', '/usr/bin/bash', 'env', 'sudo', 'busybox']) {
        expectRefused(
          () =>
            validateRuntimeSpec(
              specFor(withLaunch({ executable, args: ['-c', 'id', '{{port}}'] }), MODEL_PATH),
              'openai-compatible',
            ),
          'LAUNCH_SPEC_INVALID',
          ['runtime.launch.executable'],
        );
      }
    });

    it('refuses interpreter inline code, command strings and unknown placeholders', () => {
      expectRefused(
        () =>
          validateRuntimeSpec(
            specFor(withLaunch({ executable: 'python3', args: ['-c', 'import os', '{{port}}'] }), MODEL_PATH),
            'openai-compatible',
          ),
        'LAUNCH_SPEC_INVALID',
        ['runtime.launch.args.0'],
      );
      expectRefused(
        () =>
          validateRuntimeSpec(
            specFor(withLaunch({ executable: 'vllm serve --port 8000' }), MODEL_PATH),
            'openai-compatible',
          ),
        'LAUNCH_SPEC_INVALID',
        ['runtime.launch.executable'],
      );
      expectRefused(
        () =>
          validateRuntimeSpec(
            specFor(withLaunch({ args: ['--port', '{{secret}}'] }), MODEL_PATH),
            'openai-compatible',
          ),
        'LAUNCH_SPEC_INVALID',
        ['runtime.launch.args.1'],
      );
      const error = refusal(() =>
        validateRuntimeSpec(specFor(withLaunch({ executable: 'sh' }), MODEL_PATH), 'openai-compatible'),
      );
      expect(error.code).to.equal(ErrorCode.VALIDATION_FAILED);
    });

    it('refuses a record of another kind', () => {
      expectRefused(
        () => validateRuntimeSpec(specFor(assignedRuntime(FAKE_RECORD()), MODEL_PATH), 'openai-compatible'),
        'WRONG_RUNTIME_KIND',
      );
    });

    it('refuses variables outside the allowlist and those that inject code', () => {
      const runtime = withLaunch({ envAllowlist: ['HF_HUB_OFFLINE', 'LD_PRELOAD'] });
      expectRefused(
        () =>
          validateRuntimeSpec(specFor(runtime, MODEL_PATH, { env: { HF_TOKEN: 'x' } }), 'openai-compatible'),
        'ENV_NOT_ALLOWED',
        ['env.HF_TOKEN'],
      );
      expectRefused(
        () =>
          validateRuntimeSpec(
            specFor(runtime, MODEL_PATH, { env: { LD_PRELOAD: '/tmp/x.so' } }),
            'openai-compatible',
          ),
        'ENV_NOT_ALLOWED',
        ['env.LD_PRELOAD'],
      );
      expect(
        validateRuntimeSpec(
          specFor(runtime, MODEL_PATH, { env: { HF_HUB_OFFLINE: '1' } }),
          'openai-compatible',
        ).id,
      ).to.equal(runtime.id);
    });

    it('refuses empty launch values', () => {
      expectRefused(
        () =>
          validateRuntimeSpec(
            specFor(withLaunch({}), MODEL_PATH, { servedModelName: '' }),
            'openai-compatible',
          ),
        'LAUNCH_SPEC_INVALID',
        ['servedModelName'],
      );
    });
  });

  it('substitutes exactly the four placeholders, also inside a longer arg', () => {
    expect(
      renderArgs(['--bind={{host}}:{{port}}', '{{modelPath}}', '--name', '{{servedModelName}}', 'plain'], {
        host: '127.0.0.1',
        port: '41001',
        modelPath: '/m/model.gguf',
        servedModelName: 'm@1',
      }),
    ).to.deep.equal(['--bind=127.0.0.1:41001', '/m/model.gguf', '--name', 'm@1', 'plain']);
  });

  it('gives a binary only PATH/HOME/LANG/TZ of the agent, its allowlisted values and its GPUs', () => {
    const runtime = withLaunch({ envAllowlist: ['HF_HUB_OFFLINE', 'CUDA_VISIBLE_DEVICES'] });
    const spec = specFor(runtime, MODEL_PATH, {
      env: { HF_HUB_OFFLINE: '1' },
      gpuUuids: ['GPU-aaaaaaaa-0000-0000-0000-000000000001', 'GPU-aaaaaaaa-0000-0000-0000-000000000002'],
    });
    expect(
      binaryEnv(spec, {
        PATH: '/usr/bin',
        HOME: '/var/lib/x',
        AWS_SECRET_ACCESS_KEY: 'agent-secret',
        LANG: 'C.UTF-8',
      }),
    ).to.deep.equal({
      PATH: '/usr/bin',
      HOME: '/var/lib/x',
      LANG: 'C.UTF-8',
      HF_HUB_OFFLINE: '1',
      CUDA_VISIBLE_DEVICES:
        'GPU-aaaaaaaa-0000-0000-0000-000000000001,GPU-aaaaaaaa-0000-0000-0000-000000000002',
    });
    expectRefused(() => binaryEnv({ ...spec, env: { CUDA_VISIBLE_DEVICES: '0' } }, {}), 'ENV_NOT_ALLOWED', [
      'env.CUDA_VISIBLE_DEVICES',
    ]);
  });

  describe('containers', () => {
    const assignment = ASSIGNMENT();
    const spec: RuntimeSpec = runtimeSpecFromAssignment(assignment, { modelPath: MODEL_PATH });
    const runtime = assignedRuntime(VLLM_RECORD());

    it('builds the docker/podman run argv from the vLLM record, never a command string', () => {
      const launch = containerLaunch(spec, runtime, {
        host: '10.0.0.11',
        hostPort: 41001,
        agentEnv: { PATH: '/usr/bin', DOCKER_HOST: 'unix:///run/docker.sock', SECRET: 'agent-only' },
      });
      expect(launch.name).to.equal('lunanexa-asg-01JD5BA');
      expect(launch.args).to.deep.equal([
        'run',
        '--rm',
        '--name',
        'lunanexa-asg-01JD5BA',
        '--label',
        'lunanexa.assignment=asg-01JD5BA',
        '--label',
        'lunanexa.runtime=runtime-vllm-0-11',
        '--publish',
        '10.0.0.11:41001:8000',
        '--mount',
        `type=bind,source=${MODEL_PATH},target=/lunanexa/models/model.safetensors,readonly=true`,
        '--device',
        'nvidia.com/gpu=GPU-5f3e1a2b-8c4d-4e6f-9a0b-1c2d3e4f5a6b',
        '--env',
        'HF_HUB_OFFLINE',
        '--entrypoint',
        'vllm',
        'nvcr.io/nvidia/vllm@sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
        'serve',
        '/lunanexa/models/model.safetensors',
        '--served-model-name',
        'llama-3-1-8b-instruct@2024-07-23',
        '--host',
        '0.0.0.0',
        '--port',
        '8000',
        '--gpu-memory-utilization',
        '0.85',
      ]);
      // Values travel in the CLI's environment, forwarded by name: never in argv, never the agent's own secrets.
      expect(launch.env).to.deep.equal({
        PATH: '/usr/bin',
        DOCKER_HOST: 'unix:///run/docker.sock',
        HF_HUB_OFFLINE: '1',
      });
    });

    it('labels the container with the agent-made owner tag, launch digest and endpoint, sorted, after its own', () => {
      const launch = containerLaunch(spec, runtime, {
        host: '10.0.0.11',
        hostPort: 41001,
        agentEnv: {},
        labels: {
          'lunanexa.owner': 'a1b2c3d4e5f6a1b2c3d4e5f6',
          'lunanexa.launch-digest': `sha256:${'d'.repeat(64)}`,
          'lunanexa.endpoint': 'http://10.0.0.11:41001',
          // An agent-made label may not override what the assignment names.
          'lunanexa.assignment': 'someone-else',
        },
      });
      const labels = launch.args.flatMap((arg, index) => (launch.args[index - 1] === '--label' ? [arg] : []));
      expect(labels).to.deep.equal([
        'lunanexa.assignment=asg-01JD5BA',
        'lunanexa.runtime=runtime-vllm-0-11',
        'lunanexa.endpoint=http://10.0.0.11:41001',
        `lunanexa.launch-digest=sha256:${'d'.repeat(64)}`,
        'lunanexa.owner=a1b2c3d4e5f6a1b2c3d4e5f6',
      ]);
      expect(launch.args.indexOf('--publish')).to.be.greaterThan(launch.args.lastIndexOf('--label'));
    });

    it('publishes on an IPv6 address in brackets', () => {
      const launch = containerLaunch(spec, runtime, { host: '::1', hostPort: 41001, agentEnv: {} });
      expect(launch.args).to.include('[::1]:41001:8000');
    });

    it('refuses model paths a bind mount would misread and variables the engine reads', () => {
      expectRefused(
        () =>
          containerLaunch({ ...spec, modelPath: '/models/a,b' }, runtime, {
            host: '127.0.0.1',
            hostPort: 1,
            agentEnv: {},
          }),
        'LAUNCH_SPEC_INVALID',
        ['modelPath'],
      );
      expectRefused(
        () =>
          containerLaunch({ ...spec, modelPath: 'relative/model' }, runtime, {
            host: '127.0.0.1',
            hostPort: 1,
            agentEnv: {},
          }),
        'LAUNCH_SPEC_INVALID',
        ['modelPath'],
      );
      const engineVariable = {
        ...runtime,
        launch: { ...runtime.launch, envAllowlist: [...runtime.launch.envAllowlist, 'DOCKER_HOST'] },
      };
      expectRefused(
        () =>
          containerLaunch({ ...spec, env: { DOCKER_HOST: 'tcp://elsewhere:2375' } }, engineVariable, {
            host: '127.0.0.1',
            hostPort: 1,
            agentEnv: {},
          }),
        'ENV_NOT_ALLOWED',
        ['env.DOCKER_HOST'],
      );
    });

    it('refuses a container record without a container port', () => {
      expectRefused(
        () =>
          containerLaunch(
            spec,
            { ...runtime, launch: { ...runtime.launch, containerPort: null } },
            {
              host: '127.0.0.1',
              hostPort: 1,
              agentEnv: {},
            },
          ),
        'LAUNCH_SPEC_INVALID',
        ['runtime.launch.containerPort'],
      );
    });

    it('names containers safely and distinctly', () => {
      expect(containerName('asg-1')).to.equal('lunanexa-asg-1');
      const colon = containerName('asg:1');
      expect(colon).to.match(/^lunanexa-asg-1-[0-9a-f]{10}$/);
      expect(colon).to.not.equal(containerName('asg-1'));
      expect(containerName('asg:1')).to.equal(colon);
    });

    it('stops by name with the grace period in whole seconds', () => {
      expect(containerStopArgs('lunanexa-asg-1', 2500)).to.deep.equal([
        'stop',
        '--time',
        '3',
        'lunanexa-asg-1',
      ]);
    });
  });

  it('reaches wildcard binds over loopback', () => {
    expect(endpointFor('0.0.0.0', 8000)).to.equal('http://127.0.0.1:8000');
    expect(endpointFor('::', 8000)).to.equal('http://[::1]:8000');
    expect(endpointFor('10.0.0.11', 8000)).to.equal('http://10.0.0.11:8000');
  });
});
