/**
 * The fake runtime's scheduler, as far as load goes: at most `capacity`
 * requests run at once (vLLM's --max-num-seqs); the rest wait in arrival
 * order. It exists so `vllm:num_requests_waiting` counts requests that really
 * wait, and the gateway's load-aware choice can be exercised end to end.
 */
export interface RunTicket {
  /** Resolves once the request may run (at once when a slot is free), or once it left the queue. */
  readonly admitted: Promise<void>;
  /** Frees the slot, or leaves the queue if still waiting; idempotent. */
  leave(): void;
}

export class RunQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly capacity: number) {}

  get runningCount(): number {
    return this.running;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  enter(): RunTicket {
    let state: 'waiting' | 'running' | 'left' = 'waiting';
    let admit!: () => void;
    let resolveAdmitted!: () => void;
    const admitted = new Promise<void>((resolve) => {
      resolveAdmitted = resolve;
      admit = () => {
        state = 'running';
        this.running += 1;
        resolve();
      };
    });
    if (this.running < this.capacity) admit();
    else this.waiting.push(admit);
    return {
      admitted,
      leave: () => {
        if (state === 'left') return;
        if (state === 'running') {
          this.running -= 1;
          this.waiting.shift()?.();
        } else {
          this.waiting.splice(this.waiting.indexOf(admit), 1);
          // Whoever awaits admission must not hang; it checks that it left.
          resolveAdmitted();
        }
        state = 'left';
      },
    };
  }
}
