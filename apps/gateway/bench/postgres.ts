import { join } from 'node:path';
import { type StartedProcess, startProcess } from './processes';

/** Admin connection for the bench's scratch database; the first of these that is set wins. */
export const BENCH_PG_ADMIN_URL_VARIABLE = 'LUNANEXA_BENCH_PG_ADMIN_URL';
/** Port of the embedded server started when neither variable is set. */
export const BENCH_PG_PORT_VARIABLE = 'LUNANEXA_BENCH_PG_PORT';
const DEFAULT_EMBEDDED_PORT = '54349';

export interface BenchPostgres {
  /** A URL whose user may CREATE DATABASE; never printed (it may hold a password). */
  readonly adminUrl: string;
  readonly source: typeof BENCH_PG_ADMIN_URL_VARIABLE | 'DATABASE_URL' | 'embedded';
  stop(): Promise<void>;
}

/**
 * PostgreSQL for the gateway's scratch database: `LUNANEXA_BENCH_PG_ADMIN_URL`,
 * else `DATABASE_URL`, else the embedded server under `.data/bench` started
 * the way `npm test` starts its own (scripts/postgres.mjs in a child process).
 */
export async function startBenchPostgres(
  repoRoot: string,
  log: (line: string) => void,
): Promise<BenchPostgres> {
  const fromBench = process.env[BENCH_PG_ADMIN_URL_VARIABLE];
  if (fromBench) return { adminUrl: fromBench, source: BENCH_PG_ADMIN_URL_VARIABLE, stop: async () => {} };
  const fromDatabaseUrl = process.env['DATABASE_URL'];
  if (fromDatabaseUrl) return { adminUrl: fromDatabaseUrl, source: 'DATABASE_URL', stop: async () => {} };

  const dataDir = join(repoRoot, '.data', 'bench');
  const port = process.env[BENCH_PG_PORT_VARIABLE] || DEFAULT_EMBEDDED_PORT;
  log(`starting embedded PostgreSQL on 127.0.0.1:${port} (.data/bench)`);
  const server: StartedProcess = startProcess({
    name: 'postgres',
    command: process.execPath,
    args: [join(repoRoot, 'scripts', 'postgres.mjs'), '--data-dir', dataDir, '--port', port],
    cwd: repoRoot,
    logFile: null,
  });
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`embedded PostgreSQL did not start within 120 s\n${output.slice(-20).join('\n')}`)),
      120_000,
    );
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const match = /DATABASE_URL=(\S+)/.exec(line);
        if (match?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(match[1]);
        } else {
          // Never kept: the line with the URL carries the password.
          output.push(line);
          output.splice(0, Math.max(0, output.length - 40));
        }
      }
    };
    // Read for as long as it runs, so it never blocks on a full pipe.
    server.child.stdout?.on('data', onData);
    server.child.stderr?.on('data', onData);
    void server.exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`embedded PostgreSQL exited before it was ready\n${output.slice(-20).join('\n')}`));
    });
  });
  const admin = new URL(url);
  admin.pathname = '/postgres';
  return {
    adminUrl: admin.toString(),
    source: 'embedded',
    // scripts/postgres.mjs stops the cluster on SIGTERM and exits once it is down.
    stop: () => server.stop(45_000),
  };
}
