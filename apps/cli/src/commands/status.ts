import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { z } from 'zod';
import { answerError, jsonBody, problemError, type ApiClient } from '../api-client';
import { displayUrl, type CommandContext } from '../context';
import { CliError, CliErrorCode, ExitCode, formatError } from '../errors';
import { formatFields, formatTable, writeJson } from '../output';

/** libs/sdk/graphql/cli/status.graphql */
export const HEALTH_QUERY = Operations.HealthDocument.document;

type Health = z.infer<typeof Results.HealthQuerySchema>['health'];

export type Readiness =
  | { readonly ready: true }
  | { readonly ready: false; readonly code: string; readonly reason: string; readonly requestId: string };

/**
 * GET /ready: 200 means ready; 503 means "not ready" and is an answer, not an
 * error (the problem body says which dependency is failing). Anything else is
 * an error.
 */
export async function readiness(api: ApiClient): Promise<Readiness> {
  const answer = await api.request('GET', 'ready');
  if (answer.status === 503) {
    let stated: CliError | undefined;
    try {
      stated = problemError(answer, jsonBody(answer));
    } catch (error: unknown) {
      // A 503 from a proxy has no problem body; it still means "not ready".
      if (!(error instanceof CliError)) throw error;
      stated = error;
    }
    return {
      ready: false,
      code: stated?.code ?? 'HTTP_503',
      reason: stated?.message ?? 'HTTP 503',
      requestId: answer.requestId,
    };
  }
  const body = jsonBody(answer);
  const error = answerError(answer, body);
  if (error !== undefined) throw error;
  if (!z.object({ status: z.literal('ready') }).safeParse(body).success) {
    throw new CliError(
      { code: CliErrorCode.BAD_RESPONSE, message: 'GET /ready answered 2xx without status "ready"' },
      answer.requestId,
    );
  }
  return { ready: true };
}

/**
 * `lunanexa status`: exit 0 ready, 1 not ready, 69 API unreachable, or the
 * exit code of the error either call returned (e.g. 77 when not allowed).
 */
export async function statusCommand(ctx: CommandContext): Promise<ExitCode> {
  const [health, ready] = await Promise.allSettled([
    ctx.api.graphql(HEALTH_QUERY, undefined, Results.HealthQuerySchema),
    readiness(ctx.api),
  ]);
  if (health.status === 'rejected' || ready.status === 'rejected') {
    const failures: unknown[] = [health, ready].flatMap((result) =>
      result.status === 'rejected' ? [result.reason as unknown] : [],
    );
    return reportFailures(ctx, failures);
  }
  const report = {
    apiUrl: displayUrl(ctx.api.baseUrl),
    ready: ready.value,
    health: health.value.data.health,
  };

  if (ctx.json) writeJson(ctx.io.stdout, report);
  else ctx.io.stdout(renderStatus(report.apiUrl, report.ready, report.health));
  return report.ready.ready ? ExitCode.OK : ExitCode.FAILURE;
}

/**
 * Prints the failures and picks the exit code. Unreachable wins: if one call
 * got through and the other did not, the API is flapping, and 69 says so.
 */
function reportFailures(ctx: CommandContext, failures: readonly unknown[]): ExitCode {
  const typed: CliError[] = [];
  for (const failure of failures) {
    if (!(failure instanceof CliError)) throw failure;
    typed.push(failure);
  }
  const unreachable = typed.find((failure) => failure.code === CliErrorCode.API_UNREACHABLE);
  const reported = unreachable === undefined ? typed : [unreachable];
  for (const failure of reported) ctx.io.stderr(formatError(failure));
  return (reported[0] ?? unreachableBug()).exitCode;
}

function unreachableBug(): never {
  throw new Error('reportFailures called without failures');
}

export function renderStatus(apiUrl: string, ready: Readiness, health: Health): string {
  const readyText = ready.ready ? 'yes' : `no: ${ready.reason} (${ready.code}, request ${ready.requestId})`;
  const checks = health.checks.map((check) => [
    check.name,
    check.status,
    check.latencyMs === null ? '-' : `${check.latencyMs} ms`,
    check.detail ?? '',
  ]);
  return (
    formatFields([
      ['api', apiUrl],
      ['ready', readyText],
      ['health', health.status],
      ['version', `${health.version} (commit ${health.commit})`],
    ]) +
    '\n' +
    formatTable(['CHECK', 'STATUS', 'LATENCY', 'DETAIL'], checks)
  );
}
