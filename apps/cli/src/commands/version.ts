import { CONTRACTS_VERSION } from '@lunanexa/contracts';
import { z } from 'zod';
import { displayUrl, type CommandContext } from '../context';
import { CliError, CliErrorCode, ExitCode } from '../errors';
import { formatFields, writeJson } from '../output';

const ApiVersionSchema = z.object({
  version: z.string(),
  commit: z.string(),
  contracts: z.string().optional(),
});

export type ApiVersionReport =
  | {
      readonly reachable: true;
      readonly version: string;
      readonly commit: string;
      readonly contracts: string | null;
    }
  | {
      readonly reachable: boolean;
      readonly error: { readonly code: string; readonly message: string; readonly requestId: string | null };
    };

/**
 * `lunanexa version`: always exits 0 once the arguments are valid. It is what
 * people run first when something is wrong, so an unreachable API is part of
 * the answer, not a failure of the command.
 */
export async function versionCommand(ctx: CommandContext): Promise<ExitCode> {
  const apiUrl = displayUrl(ctx.api.baseUrl);
  let api: ApiVersionReport;
  try {
    const { data } = await ctx.api.getJson('version', ApiVersionSchema);
    api = { reachable: true, version: data.version, commit: data.commit, contracts: data.contracts ?? null };
  } catch (error: unknown) {
    if (!(error instanceof CliError)) throw error;
    api = {
      reachable: error.code !== CliErrorCode.API_UNREACHABLE,
      error: { code: error.code, message: error.message, requestId: error.requestId ?? null },
    };
  }

  if (ctx.json) {
    writeJson(ctx.io.stdout, {
      cli: { version: ctx.cliVersion, contracts: CONTRACTS_VERSION },
      api: { url: apiUrl, ...api },
    });
    return ExitCode.OK;
  }
  ctx.io.stdout(
    formatFields([
      ['lunanexa', ctx.cliVersion],
      ['contracts', CONTRACTS_VERSION],
      ['api', describeApi(api, apiUrl)],
    ]),
  );
  if ('version' in api && api.contracts !== null && api.contracts !== CONTRACTS_VERSION) {
    ctx.io.stderr(
      `warning: the API speaks contracts ${api.contracts}; this CLI speaks ${CONTRACTS_VERSION}\n`,
    );
  }
  return ExitCode.OK;
}

function describeApi(api: ApiVersionReport, apiUrl: string): string {
  if ('version' in api) return `${api.version} (commit ${api.commit}) at ${apiUrl}`;
  const request = api.error.requestId === null ? '' : ` (request ${api.error.requestId})`;
  const state = api.reachable ? 'unavailable' : 'unreachable';
  return `${state} at ${apiUrl}: error[${api.error.code}]: ${api.error.message}${request}`;
}
