import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TEST_OPERATOR_TOKEN, startGateway, type StartedGateway } from './support';

const LIMIT = 1_048_576;
/** What the kernel and node:http may take off the wire beyond what the gateway asked for. */
const SLACK = 256 * 1024;

/**
 * A Node `fetch` client in its own process (in-process, client and server
 * share an event loop and hide the reset race) sending 20 MB bodies, with a
 * declared length and chunked, and printing what each call ended with.
 */
const CLIENT = `
const [url, authorization, rounds] = process.argv.slice(2);
const body = JSON.stringify({ model: 'x@y', messages: [{ role: 'user', content: 'a'.repeat(20 * 1024 * 1024) }] });
const bytes = Buffer.from(body);
const outcomes = [];
for (let round = 0; round < Number(rounds); round++) {
  for (const mode of ['declared', 'chunked']) {
    const init = { method: 'POST', headers: { 'content-type': 'application/json' } };
    if (authorization !== '-') init.headers.authorization = authorization;
    if (mode === 'declared') init.body = body;
    else {
      init.duplex = 'half';
      init.body = new ReadableStream({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 65536) controller.enqueue(bytes.subarray(i, i + 65536));
          controller.close();
        },
      });
    }
    try {
      const response = await fetch(url + '/v1/chat/completions', init);
      const problem = await response.json();
      outcomes.push({ mode, status: response.status, code: problem.code, connection: response.headers.get('connection') });
    } catch (error) {
      outcomes.push({ mode, error: String(error.cause?.code ?? error.message) });
    }
  }
}
console.log(JSON.stringify(outcomes));
`;

describe('gateway refusals of request bodies it will not read', function () {
  this.timeout(60_000);
  let gw: StartedGateway;
  let dir: string;
  let script: string;
  const bytesRead: number[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lnx-bodies-'));
    script = join(dir, 'client.mjs');
    writeFileSync(script, CLIENT);
    gw = await startGateway({ maxBodyBytes: LIMIT });
    gw.gateway.server.on('connection', (socket) =>
      socket.once('close', () => bytesRead.push(socket.bytesRead)),
    );
  });

  after(async () => {
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(authorization: string, rounds: number): Promise<Record<string, unknown>[]> {
    bytesRead.length = 0;
    const { stdout } = await promisify(execFile)(process.execPath, [
      script,
      gw.url,
      authorization,
      String(rounds),
    ]);
    // Sockets close on the server after the client went: wait for every one to report.
    const deadline = Date.now() + 5000;
    while (bytesRead.length < rounds * 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    return JSON.parse(stdout) as Record<string, unknown>[];
  }

  it('a 20 MB body gets 413 after at most the limit was read, and the fetch client sees the 413, not a socket error', async () => {
    const outcomes = await run(`Bearer ${TEST_OPERATOR_TOKEN}`, 10);
    expect(outcomes).to.have.length(20);
    for (const outcome of outcomes)
      expect(outcome).to.deep.include({ status: 413, code: 'PAYLOAD_TOO_LARGE', connection: 'close' });
    expect(bytesRead).to.have.length(20);
    // Declared lengths are refused before any body byte is read; chunked bodies up to the limit.
    for (const read of bytesRead) expect(read).to.be.at.most(LIMIT + SLACK);
  });

  it('a caller without a credential sending 20 MB gets its 401 the same way, with nothing read', async () => {
    const outcomes = await run('-', 5);
    for (const outcome of outcomes) expect(outcome).to.deep.include({ status: 401, code: 'UNAUTHENTICATED' });
    for (const read of bytesRead) expect(read).to.be.at.most(SLACK);
  });
});
