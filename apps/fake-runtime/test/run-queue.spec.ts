import { expect } from 'chai';
import { RunQueue } from '../src/run-queue';

const settled = async (promise: Promise<void>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('fake runtime run queue', () => {
  it('runs up to its capacity and queues the rest in arrival order', async () => {
    const queue = new RunQueue(2);
    const [a, b, c, d] = [queue.enter(), queue.enter(), queue.enter(), queue.enter()];
    expect([queue.runningCount, queue.waitingCount]).to.deep.equal([2, 2]);
    expect(await settled(a.admitted)).to.equal(true);
    expect(await settled(c.admitted)).to.equal(false);
    a.leave();
    expect(await settled(c.admitted)).to.equal(true);
    expect(await settled(d.admitted)).to.equal(false);
    expect([queue.runningCount, queue.waitingCount]).to.deep.equal([2, 1]);
    b.leave();
    c.leave();
    d.leave();
    expect([queue.runningCount, queue.waitingCount]).to.deep.equal([0, 0]);
  });

  it('lets a waiting request leave without taking a slot, and ignores a second leave', async () => {
    const queue = new RunQueue(1);
    const running = queue.enter();
    const gone = queue.enter();
    const next = queue.enter();
    gone.leave();
    expect([queue.runningCount, queue.waitingCount]).to.deep.equal([1, 1]);
    expect(await settled(gone.admitted), 'no one waits forever for a request that left').to.equal(true);
    expect(queue.runningCount).to.equal(1);
    running.leave();
    running.leave();
    expect(await settled(next.admitted)).to.equal(true);
    expect([queue.runningCount, queue.waitingCount]).to.deep.equal([1, 0]);
  });
});
