import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CpuPriorityError, lowerCpuPriority, threadNiceValues } from '../src';

/** A Node process with a worker thread besides V8's and libuv's: several threads, as the worker has. */
function startThreadedChild(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const { Worker } = require('node:worker_threads');
       new Worker('setInterval(() => {}, 1000)', { eval: true }).on('online', () => console.log('ready'));
       setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', () => resolve(child));
  });
}

describe('lowerCpuPriority', function () {
  before(function () {
    // Per-thread nice values are a Linux notion (/proc/<pid>/task).
    if (!existsSync('/proc/self/task')) this.skip();
  });

  let child: ChildProcess | undefined;
  afterEach(() => child?.kill('SIGKILL'));

  it('lowers every thread of a process, not only its main one', async () => {
    child = await startThreadedChild();
    const pid = child.pid as number;
    expect(threadNiceValues(pid).length).to.be.greaterThan(2);
    expect(new Set(threadNiceValues(pid))).to.deep.equal(new Set([0]));
    const change = lowerCpuPriority(7, pid);
    expect(change).to.include({ pid, nice: 7 });
    expect(change.lowered).to.equal(change.threads);
    expect(new Set(threadNiceValues(pid))).to.deep.equal(new Set([7]));
  });

  it('never raises a priority: a thread already lower keeps its value', async () => {
    child = await startThreadedChild();
    const pid = child.pid as number;
    lowerCpuPriority(12, pid);
    const again = lowerCpuPriority(5, pid);
    expect(again.lowered).to.equal(0);
    expect(new Set(threadNiceValues(pid))).to.deep.equal(new Set([12]));
  });

  it('refuses a nice value outside 0–19 and names a process that is gone', async () => {
    expect(() => lowerCpuPriority(20)).to.throw(RangeError, /0 to 19/);
    expect(() => lowerCpuPriority(-1)).to.throw(RangeError);
    expect(() => lowerCpuPriority(3.5)).to.throw(RangeError);
    child = await startThreadedChild();
    const pid = child.pid as number;
    child.kill('SIGKILL');
    await new Promise((resolve) => child?.once('exit', resolve));
    try {
      lowerCpuPriority(5, pid);
      expect.fail('a process that has exited cannot be lowered');
    } catch (error) {
      expect(error).to.be.instanceOf(CpuPriorityError);
      expect((error as CpuPriorityError).code).to.equal('ESRCH');
    }
  });
});
