import type { RuntimeKind } from '@lunanexa/contracts';
import type {
  RuntimeAdapter,
  RuntimeContext,
  RuntimeHandle,
  RuntimeHealth,
  RuntimeMetrics,
  RuntimeSpec,
} from './adapter';
import { RuntimeError } from './errors';
import { checkHealth, collectMetrics } from './health';
import { SupervisedRuntime } from './supervised-runtime';

/** What the fake and openai-compatible adapters share: their handles are supervised processes. */
export abstract class SupervisingAdapter implements RuntimeAdapter {
  abstract readonly kind: RuntimeKind;

  abstract start(spec: RuntimeSpec, ctx: RuntimeContext): Promise<RuntimeHandle>;

  async health(handle: RuntimeHandle): Promise<RuntimeHealth> {
    return checkHealth(this.supervised(handle));
  }

  async metrics(handle: RuntimeHandle): Promise<RuntimeMetrics> {
    return collectMetrics(this.supervised(handle));
  }

  protected supervised(handle: RuntimeHandle): SupervisedRuntime {
    if (!(handle instanceof SupervisedRuntime)) {
      throw new RuntimeError(
        'FOREIGN_HANDLE',
        `the ${this.kind} adapter did not start runtime ${handle.runtimeId}`,
      );
    }
    return handle;
  }
}
