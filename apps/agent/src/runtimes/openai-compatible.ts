import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { RuntimeContext, RuntimeHandle, RuntimeSpec } from './adapter';
import { RuntimeError } from './errors';
import { DEFAULT_HEALTH_CHECK } from './health';
import { freePort, resolveExecutable, sha256File } from './host';
import {
  binaryEnv,
  containerLaunch,
  containerStopArgs,
  endpointFor,
  renderArgs,
  validateRuntimeSpec,
} from './launch';
import { SupervisedRuntime } from './supervised-runtime';
import { SupervisingAdapter } from './supervising-adapter';

const execFileAsync = promisify(execFile);

/** Extra time the engine's `stop` gets beyond the grace period before the agent gives up on it. */
const ENGINE_STOP_SLACK_MS = 10_000;

export interface OpenAiCompatibleAdapterOptions {
  /**
   * The container CLI for container-packaged runtimes: `docker` (default) or
   * `podman`, by name on PATH or as an absolute path. Both take the same argv.
   */
  readonly containerEngine?: string;
  /** Where PATH and the engine's variables come from; defaults to the agent's environment. */
  readonly agentEnv?: Readonly<Record<string, string | undefined>>;
}

/**
 * vLLM, llama.cpp server, SGLang — any server speaking the OpenAI API —
 * launched from a runtime record:
 *
 * - `binary`: the executable (absolute, or found on the agent's PATH) is
 *   hashed and must match the record's digest, then exec'd with the rendered
 *   args on a port the agent picked (`{{port}}`) and the allowlisted env.
 * - `container`: `<engine> run --rm --name lunanexa-<assignment> --publish
 *   host:port:containerPort … image@digest args…`; stopped with
 *   `<engine> stop --time <grace>` so the container itself gets SIGTERM.
 */
export class OpenAiCompatibleRuntimeAdapter extends SupervisingAdapter {
  readonly kind = 'openai-compatible' as const;
  /** The container CLI as configured (a name on PATH or a path); the reconciler's orphan sweep uses the same one. */
  readonly engine: string;
  readonly agentEnv: Readonly<Record<string, string | undefined>>;

  constructor(options: OpenAiCompatibleAdapterOptions = {}) {
    super();
    this.engine = options.containerEngine ?? 'docker';
    this.agentEnv = options.agentEnv ?? process.env;
  }

  async start(spec: RuntimeSpec, ctx: RuntimeContext): Promise<RuntimeHandle> {
    const runtime = validateRuntimeSpec(spec, this.kind);
    const healthCheck = spec.health ?? DEFAULT_HEALTH_CHECK;
    const searchPath = this.agentEnv['PATH'] ?? '';

    if (runtime.packaging.type === 'binary') {
      const { launch, packaging } = runtime;
      if (launch.containerPort !== null || !launch.args.some((arg) => arg.includes('{{port}}'))) {
        throw new RuntimeError('LAUNCH_SPEC_INVALID', `binary runtime ${runtime.id} must take {{port}}`, [
          {
            path: 'runtime.launch',
            message: 'a binary runtime has containerPort null and {{port}} in its args',
          },
        ]);
      }
      const env = binaryEnv(spec, this.agentEnv);
      const executable = await resolveExecutable(launch.executable, searchPath);
      if (executable === null) {
        throw new RuntimeError('EXECUTABLE_NOT_FOUND', `${launch.executable} is not installed on this node`);
      }
      const digest = await sha256File(executable);
      if (digest !== packaging.digest) {
        throw new RuntimeError(
          'DIGEST_MISMATCH',
          `${executable} is ${digest}; runtime ${runtime.id} pins ${packaging.digest}`,
        );
      }
      const port = ctx.port ?? (await freePort(ctx.host));
      const args = renderArgs(launch.args, {
        host: ctx.host,
        port: String(port),
        modelPath: spec.modelPath,
        servedModelName: spec.servedModelName,
      });
      return SupervisedRuntime.launch({
        command: { command: executable, args, env: { ...env, ...ctx.processTags } },
        assignmentId: spec.assignmentId,
        runtimeId: runtime.id,
        endpoint: endpointFor(ctx.host, port),
        healthCheck,
        packaging: 'binary',
        logger: ctx.logger,
      });
    }

    const port = ctx.port ?? (await freePort(ctx.host));
    const container = containerLaunch(spec, runtime, {
      host: ctx.host,
      hostPort: port,
      agentEnv: this.agentEnv,
      ...(ctx.containerLabels === undefined ? {} : { labels: ctx.containerLabels }),
    });
    const engine = await resolveExecutable(this.engine, searchPath);
    if (engine === null) {
      throw new RuntimeError('EXECUTABLE_NOT_FOUND', `container engine ${this.engine} is not installed`);
    }
    const cliEnv = Object.fromEntries(
      Object.entries(container.env).filter(([name]) => !Object.hasOwn(spec.env, name)),
    );
    return SupervisedRuntime.launch({
      command: { command: engine, args: container.args, env: { ...container.env, ...ctx.processTags } },
      assignmentId: spec.assignmentId,
      runtimeId: runtime.id,
      endpoint: endpointFor(ctx.host, port),
      healthCheck,
      packaging: 'container',
      gracefulStop: async (graceMs) => {
        await execFileAsync(engine, containerStopArgs(container.name, graceMs), {
          env: cliEnv,
          timeout: graceMs + ENGINE_STOP_SLACK_MS,
          windowsHide: true,
        });
      },
      logger: ctx.logger,
    });
  }
}
