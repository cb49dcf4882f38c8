import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

type Interceptor = ReturnType<typeof makeGrpcRetryInterceptor>;

/**
 * The Temporal client's default gRPC retries, made safe to shut down. The
 * SDK schedules each retry on a timer that does not observe cancellation, so
 * a retry due after `connection.close()` throws "Channel has been shut down"
 * from the timer. This wrapper refuses new retries once draining starts and
 * remembers when the last scheduled one is due, so close can wait for it
 * (at most the SDK's 5 s maximum interval plus jitter).
 */
export class DrainableRetries {
  private draining = false;
  private lastRetryDueAt = 0;
  readonly interceptor: Interceptor;

  constructor() {
    const defaults = defaultGrpcRetryOptions();
    this.interceptor = makeGrpcRetryInterceptor({
      retryableDecider: (attempt, status) => !this.draining && defaults.retryableDecider(attempt, status),
      delayFunction: (attempt, status) => {
        const delay = defaults.delayFunction(attempt, status);
        this.lastRetryDueAt = Math.max(this.lastRetryDueAt, Date.now() + delay);
        return delay;
      },
    });
  }

  /** Stops scheduling retries and resolves once every scheduled one has fired. */
  async drain(): Promise<void> {
    this.draining = true;
    const wait = this.lastRetryDueAt - Date.now();
    // The retry fires, fails fast on the refused decider, and settles; a small margin covers timer slack.
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 50));
  }
}
