import { expect } from 'chai';
import { DeploymentSignals } from '../src/agent-channel/deployment-signals';

/** A send whose answers the test releases one by one. */
function gatedSend(): { sent: string[]; send: (id: string) => Promise<void>; answer: () => Promise<void> } {
  const sent: string[] = [];
  const waiting: (() => void)[] = [];
  return {
    sent,
    send: (id) => {
      sent.push(id);
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    answer: async () => {
      waiting.shift()?.();
      // Let the finally of the answered send run.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('DeploymentSignals (replicaObserved, coalesced per workflow)', () => {
  it('signals each workflow at once, and news while one is in flight becomes exactly one more signal after it', async () => {
    const gate = gatedSend();
    const signals = new DeploymentSignals(gate.send);
    signals.tell(['wf-a', 'wf-b']);
    expect(gate.sent).to.deep.equal(['wf-a', 'wf-b']);
    signals.tell(['wf-a']);
    signals.tell(['wf-a']);
    signals.tell(['wf-a']);
    expect(gate.sent).to.deep.equal(['wf-a', 'wf-b']);
    await gate.answer(); // wf-a's first signal answered: one follow-up for the three reports meanwhile
    expect(gate.sent).to.deep.equal(['wf-a', 'wf-b', 'wf-a']);
    await gate.answer(); // wf-b: nothing new for it
    await gate.answer(); // wf-a's follow-up: nothing new since
    expect(gate.sent).to.deep.equal(['wf-a', 'wf-b', 'wf-a']);
    expect(signals.pending).to.equal(0);
  });

  it('signals news at once again once the previous signal was answered', async () => {
    const sent: string[] = [];
    const signals = new DeploymentSignals((id) => {
      sent.push(id);
      return Promise.resolve();
    });
    signals.tell(['wf-a']);
    await new Promise((resolve) => setImmediate(resolve));
    signals.tell(['wf-a']);
    expect(sent).to.deep.equal(['wf-a', 'wf-a']);
  });
});
