import { FAKE_RUNTIME_MAIN } from '@lunanexa/fake-runtime';
import type { RuntimeContext, RuntimeHandle, RuntimeSpec } from './adapter';
import { RuntimeError } from './errors';
import { DEFAULT_HEALTH_CHECK } from './health';
import { freePort } from './host';
import { binaryEnv, endpointFor, renderArgs, validateRuntimeSpec } from './launch';
import { SupervisedRuntime } from './supervised-runtime';
import { SupervisingAdapter } from './supervising-adapter';

export interface FakeRuntimeAdapterOptions {
  /** The fake runtime's compiled entry point; defaults to the one built with this agent. */
  readonly entry?: string;
  /** The node binary that runs it; defaults to the agent's own. */
  readonly nodeExecutable?: string;
  /** Source of PATH/HOME/LANG/TZ for the runtime; defaults to the agent's environment. */
  readonly agentEnv?: Readonly<Record<string, string | undefined>>;
}

/**
 * Runs `@lunanexa/fake-runtime` for runtime records of kind `fake`. The
 * record's args (`--port {{port}} --model {{servedModelName}} …`) and its
 * allowlisted variables (`LUNANEXA_FAKE_TTFT_MS`, …) are used as for any
 * binary; only the executable is the fake runtime shipped with the agent,
 * started with the agent's node, because that is where it is installed on a
 * node — so no digest check applies.
 */
export class FakeRuntimeAdapter extends SupervisingAdapter {
  readonly kind = 'fake' as const;
  private readonly entry: string;
  private readonly nodeExecutable: string;
  private readonly agentEnv: Readonly<Record<string, string | undefined>>;

  constructor(options: FakeRuntimeAdapterOptions = {}) {
    super();
    this.entry = options.entry ?? FAKE_RUNTIME_MAIN;
    this.nodeExecutable = options.nodeExecutable ?? process.execPath;
    this.agentEnv = options.agentEnv ?? process.env;
  }

  async start(spec: RuntimeSpec, ctx: RuntimeContext): Promise<RuntimeHandle> {
    const runtime = validateRuntimeSpec(spec, this.kind);
    if (runtime.packaging.type !== 'binary') {
      throw new RuntimeError('PACKAGING_UNSUPPORTED', `the fake runtime ${runtime.id} runs as a binary only`);
    }
    const env = binaryEnv(spec, this.agentEnv);
    const port = ctx.port ?? (await freePort(ctx.host));
    const args = renderArgs(runtime.launch.args, {
      host: ctx.host,
      port: String(port),
      modelPath: spec.modelPath,
      servedModelName: spec.servedModelName,
    });
    return SupervisedRuntime.launch({
      command: {
        command: this.nodeExecutable,
        args: [this.entry, ...args],
        env: { ...env, ...ctx.processTags },
      },
      assignmentId: spec.assignmentId,
      runtimeId: runtime.id,
      endpoint: endpointFor(ctx.host, port),
      healthCheck: spec.health ?? DEFAULT_HEALTH_CHECK,
      packaging: 'binary',
      logger: ctx.logger,
    });
  }
}
