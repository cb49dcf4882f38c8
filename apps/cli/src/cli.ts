import { Command, CommanderError, Option } from 'commander';
import { pingCommand, type PingOptions } from './commands/ping';
import { statusCommand } from './commands/status';
import { versionCommand } from './commands/version';
import {
  API_URL_ENV,
  DEFAULT_API_URL,
  DEFAULT_TIMEOUT_MS,
  commandContext,
  type CliIo,
  type CommandContext,
  type GlobalOptions,
} from './context';
import { CliError, CliErrorCode, ExitCode, formatError } from './errors';
import { readCliVersion } from './version';

/**
 * Runs one CLI invocation and resolves with its exit code; failures are
 * printed and turned into exit codes here. Never calls process.exit, so tests
 * run it in-process and the entry point only sets process.exitCode.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  cliVersion: string = readCliVersion(),
): Promise<number> {
  let exitCode: number = ExitCode.OK;
  const program = buildProgram(io, cliVersion, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error: unknown) {
    if (error instanceof CommanderError) {
      // Help that was asked for is a success; everything else commander rejects is usage.
      if (error.exitCode === 0) return ExitCode.OK;
      // No command at all: commander has already printed the help to stderr.
      if (error.code === 'commander.help') return ExitCode.USAGE;
      const message = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
      io.stderr(`error[${CliErrorCode.USAGE}]: ${message} (see lunanexa --help)\n`);
      return ExitCode.USAGE;
    }
    if (error instanceof CliError) {
      io.stderr(formatError(error));
      return error.exitCode;
    }
    io.stderr(`error[INTERNAL]: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.SOFTWARE;
  }
}

function buildProgram(io: CliIo, cliVersion: string, setExitCode: (code: number) => void): Command {
  const program = new Command('lunanexa')
    .description('Operate a LunaNexa control plane from scripts and terminals.')
    .addOption(new Option('--api-url <url>', `API base URL (env ${API_URL_ENV}, default ${DEFAULT_API_URL})`))
    .addOption(new Option('--json', 'print one JSON document on stdout instead of text'))
    .addOption(
      new Option(
        '--token-file <path>',
        'file holding an API token (else env LUNANEXA_TOKEN, else the file named by LUNANEXA_TOKEN_FILE)',
      ),
    )
    .addOption(
      new Option('--timeout <ms>', `per-request timeout in milliseconds (default ${DEFAULT_TIMEOUT_MS})`),
    )
    .exitOverride()
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      // runCli prints commander's errors itself, in the CLI's error format.
      outputError: () => undefined,
    })
    .showSuggestionAfterError(true);

  const context = (command: Command): CommandContext =>
    commandContext(command.optsWithGlobals<GlobalOptions>(), io, cliVersion);
  program
    .command('version')
    .description(
      "print this CLI's version and the API's version and commit (exit 0 even when the API is unreachable)",
    )
    .action(async (_options: unknown, command: Command) =>
      setExitCode(await versionCommand(context(command))),
    );

  program
    .command('status')
    .description('show API health and dependency checks; exit 0 ready, 1 not ready, 69 unreachable')
    .action(async (_options: unknown, command: Command) =>
      setExitCode(await statusCommand(context(command))),
    );

  program
    .command('ping')
    .description('run the ping system check workflow and print its workflow id and Temporal UI link')
    .option(
      '--key <idempotency-key>',
      'idempotency key; the same key returns the same run (default cli-<uuid>)',
    )
    .option('--message <text>', 'text recorded with the ping (default "ping")')
    .action(async (options: PingOptions, command: Command) =>
      setExitCode(await pingCommand(context(command), options)),
    );

  return program;
}
