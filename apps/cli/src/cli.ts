import { Command, CommanderError, Option } from 'commander';
import { DATA_CLASSES, MAX_BOOTSTRAP_TOKEN_TTL_SECONDS, TAINT_EFFECTS } from '@lunanexa/contracts';
import { collect } from './arguments';
import {
  DEFAULT_WAIT_TIMEOUT_SECONDS,
  deployCreateCommand,
  deployGetCommand,
  deployListCommand,
  deployStopCommand,
  type DeployCreateOptions,
  placementPlanCommand,
  type PlacementPlanOptions,
} from './commands/deployments';
import {
  DEFAULT_GATEWAY_URL,
  DEFAULT_INVOKE_TIMEOUT_MS,
  GATEWAY_URL_ENV,
  INVOKE_APIS,
  invokeCommand,
  GATEWAY_KEY_ENV,
  GATEWAY_KEY_FILE_ENV,
  type InvokeOptions,
} from './commands/invoke';
import {
  dataPolicyGetCommand,
  dataPolicyListCommand,
  dataPolicySetCommand,
  type DataPolicySetOptions,
} from './commands/data-policy';
import { healCommand, type HealOptions } from './commands/healing';
import { digestCommand, type DigestOptions } from './commands/digest';
import { reconcileCommand, type ReconcileOptions } from './commands/reconcile';
import { modelRegisterCommand, type ModelRegisterOptions } from './commands/models';
import { registerRegistryCommands } from './commands/registry';
import {
  tokenCreateCommand,
  tokenListCommand,
  tokenRevokeCommand,
  type TokenCreateOptions,
} from './commands/node-tokens';
import {
  DEFAULT_DRAIN_TIMEOUT_SECONDS,
  nodeApproveCommand,
  nodeCordonCommand,
  nodeDrainCommand,
  nodeGetCommand,
  nodeLabelCommand,
  nodeListCommand,
  nodeRejectCommand,
  nodeRotateCredentialCommand,
  nodeTaintCommand,
  type DrainOptions,
  type RejectOptions,
  type ReplaceOptions,
  type RotateOptions,
} from './commands/nodes';
import { registerEvaluationCommands } from './commands/evaluation';
import { registerTenancyCommands } from './commands/tenancy';
import { registerSigningCommands } from './commands/signing';
import { registerControllerKeyCommands } from './commands/controller-keys';
import { registerEvidenceCommands } from './commands/evidence';
import { pingCommand, type PingOptions } from './commands/ping';
import {
  aliasCreateCommand,
  aliasGetCommand,
  aliasListCommand,
  parseRolloutAction,
  rolloutGetCommand,
  rolloutListCommand,
  rolloutSignalCommand,
  rolloutStartCommand,
  type AliasCreateOptions,
  type RolloutStartOptions,
} from './commands/rollouts';
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

type GlobalKey = keyof GlobalOptions;

function globalOptions(): readonly (readonly [GlobalKey, Option])[] {
  return [
    [
      'apiUrl',
      new Option('--api-url <url>', `API base URL (env ${API_URL_ENV}, default ${DEFAULT_API_URL})`),
    ],
    ['json', new Option('--json', 'print one JSON document on stdout instead of text')],
    [
      'tokenFile',
      new Option(
        '--token-file <path>',
        'file holding an API token (else env LUNANEXA_TOKEN, else the file named by LUNANEXA_TOKEN_FILE)',
      ),
    ],
    [
      'timeout',
      new Option(
        '--timeout <ms>',
        `per-request timeout in milliseconds (default ${DEFAULT_TIMEOUT_MS}; commands that wait for a workflow allow longer, invoke ${DEFAULT_INVOKE_TIMEOUT_MS}, unless given)`,
      ),
    ],
  ];
}

/**
 * Global options may come before or after the command (`lunanexa --json node
 * list` and `lunanexa node list --json`). Parsing is positional so that a
 * command may own a flag of the same name (`node drain --timeout <seconds>`);
 * every command therefore carries hidden copies of the global options, and
 * this map records which of a command's options are such copies.
 */
const globalKeysOf = new WeakMap<Command, ReadonlySet<GlobalKey>>();

function withGlobalOptions(command: Command, except: readonly GlobalKey[] = []): Command {
  const keys = new Set<GlobalKey>();
  for (const [key, option] of globalOptions()) {
    if (except.includes(key)) continue;
    command.addOption(option.hideHelp());
    keys.add(key);
  }
  globalKeysOf.set(command, keys);
  return command;
}

/** The global options in effect for `command`: the one nearest to it on the command line wins. */
function resolveGlobals(command: Command): GlobalOptions {
  const chain: Command[] = [];
  for (let current: Command | null = command; current !== null; current = current.parent) chain.push(current);
  const pick = <K extends GlobalKey>(key: K): GlobalOptions[K] => {
    for (const candidate of chain) {
      if (globalKeysOf.get(candidate)?.has(key) !== true) continue;
      const value = candidate.opts<GlobalOptions>()[key];
      if (value !== undefined) return value;
    }
    return undefined;
  };
  return {
    apiUrl: pick('apiUrl'),
    json: pick('json'),
    timeout: pick('timeout'),
    tokenFile: pick('tokenFile'),
  };
}

function buildProgram(io: CliIo, cliVersion: string, setExitCode: (code: number) => void): Command {
  const program = new Command('lunanexa')
    .description('Operate a LunaNexa control plane from scripts and terminals.')
    .usage('[global options] <command> [options]')
    .exitOverride()
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      // runCli prints commander's errors itself, in the CLI's error format.
      outputError: () => undefined,
    })
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError(true)
    .enablePositionalOptions();
  for (const [, option] of globalOptions()) program.addOption(option);
  globalKeysOf.set(program, new Set(globalOptions().map(([key]) => key)));

  const context = (command: Command): CommandContext =>
    commandContext(resolveGlobals(command), io, cliVersion);
  // commander calls actions with `this` bound to the command that matched.
  const run = <A extends unknown[]>(work: (ctx: CommandContext, ...args: A) => Promise<number>) =>
    async function (this: Command, ...args: A): Promise<void> {
      setExitCode(await work(context(this), ...args));
    };
  const group = (parent: Command, name: string, description: string): Command =>
    withGlobalOptions(parent.command(name).description(description));
  const leaf = (parent: Command, nameAndArgs: string, except: readonly GlobalKey[] = []): Command =>
    withGlobalOptions(parent.command(nameAndArgs), except);

  leaf(program, 'version')
    .description(
      "print this CLI's version and the API's version and commit (exit 0 even when the API is unreachable)",
    )
    .action(run((ctx) => versionCommand(ctx)));

  leaf(program, 'status')
    .description('show API health and dependency checks; exit 0 ready, 1 not ready, 69 unreachable')
    .action(run((ctx) => statusCommand(ctx)));

  leaf(program, 'ping')
    .description('run the ping system check workflow and print its workflow id and Temporal UI link')
    .option(
      '--key <idempotency-key>',
      'idempotency key; the same key returns the same run (default cli-<uuid>)',
    )
    .option('--message <text>', 'text recorded with the ping (default "ping")')
    .action(run((ctx, options: PingOptions) => pingCommand(ctx, options)));

  // -------------------------------------------------------------------------
  const node = group(program, 'node', 'enroll and operate GPU nodes (node arguments take a node id or name)');

  const token = group(node, 'token', 'single-use bootstrap tokens that enroll a node (admin)');
  leaf(token, 'create')
    .description('create a bootstrap token; prints the token ONCE with the command to run on the node')
    .option('--node-name <name>', 'only an agent with this node name may use the token')
    .option('--label <key=value>', 'label the node gets on enrollment (repeatable)', collect)
    .option(
      '--ttl <seconds>',
      `lifetime in seconds, 60-${MAX_BOOTSTRAP_TOKEN_TTL_SECONDS} (default 900: 15 minutes)`,
    )
    .option('--auto-approve', 'approve the node on enrollment without an operator')
    .action(run((ctx, options: TokenCreateOptions) => tokenCreateCommand(ctx, options)));
  leaf(token, 'list')
    .description('list bootstrap tokens, newest first (never the secret)')
    .action(run((ctx) => tokenListCommand(ctx)));
  leaf(token, 'revoke <id>')
    .description('revoke an unused bootstrap token')
    .action(run((ctx, id: string) => tokenRevokeCommand(ctx, id)));

  leaf(node, 'list')
    .description('list nodes: lifecycle, readiness, cordoned, GPUs, heartbeat age, replicas ready/wanted')
    .action(run((ctx) => nodeListCommand(ctx)));
  leaf(node, 'get <node>')
    .description(
      'show one node: conditions, labels, taints, inventory, assignments (desired vs observed generation)',
    )
    .action(run((ctx, name: string) => nodeGetCommand(ctx, name)));
  leaf(node, 'approve <node>')
    .description('approve a Pending node and wait until it is enrolled (credential issued, Active)')
    .action(run((ctx, name: string) => nodeApproveCommand(ctx, name)));
  leaf(node, 'reject <node>')
    .description('reject a Pending node; it must enroll again with a new token')
    .option('--reason <text>', 'why (required; recorded in the audit log)')
    .action(run((ctx, name: string, options: RejectOptions) => nodeRejectCommand(ctx, name, options)));
  leaf(node, 'label <node> [labels...]')
    .description('REPLACE the node labels with exactly the key=value pairs given')
    .option('--none', 'remove every label')
    .addHelpText(
      'after',
      '\nThe labels given become the complete set: a label left out is removed. To add one label,\n' +
        'repeat the current ones (see `lunanexa node get <node>`). `key=` sets an empty value.\n\n' +
        'Example:\n  lunanexa node label gb10-1 gpu=gb10 zone=lab-a\n',
    )
    .action(
      run((ctx, name: string, labels: string[], options: ReplaceOptions) =>
        nodeLabelCommand(ctx, name, labels, options),
      ),
    );
  leaf(node, 'taint <node> [taints...]')
    .description('REPLACE the node taints with exactly the key=value:Effect taints given')
    .option('--none', 'remove every taint')
    .addHelpText(
      'after',
      `\nEach taint is key=value:Effect or key:Effect, Effect one of ${TAINT_EFFECTS.join(', ')}.\n` +
        'The taints given become the complete set: a taint left out is removed.\n\n' +
        'Example:\n  lunanexa node taint gb10-1 maintenance=true:NoSchedule\n',
    )
    .action(
      run((ctx, name: string, taints: string[], options: ReplaceOptions) =>
        nodeTaintCommand(ctx, name, taints, options),
      ),
    );
  leaf(node, 'cordon <node>')
    .description('stop new placements on the node; running replicas keep serving')
    .action(run((ctx, name: string) => nodeCordonCommand(ctx, name, true)));
  leaf(node, 'uncordon <node>')
    .description('allow new placements on the node again')
    .action(run((ctx, name: string) => nodeCordonCommand(ctx, name, false)));
  // Its own --timeout is in seconds; the global request timeout goes before `node`.
  leaf(node, 'drain <node>', ['timeout'])
    .description(
      'cordon, move each replica make-before-break (replacement Ready, then the old one drains and stops); prints the receipt and workflow',
    )
    .option(
      '--timeout <seconds>',
      `extra time the drain waits for its replicas to stop, beyond their replacements (default ${DEFAULT_DRAIN_TIMEOUT_SECONDS}; the request timeout is the global --timeout, given before "node")`,
    )
    .option('--key <idempotency-key>', 'the same key joins the same drain run (default: a new run)')
    .option(
      '--force',
      'drain even if replicas have no other node to go to (refused otherwise: DRAIN_WOULD_STRAND_REPLICAS)',
    )
    .option('--reason <text>', 'why a forced drain may strand replicas; required with --force, audited')
    .action(run((ctx, name: string, options: DrainOptions) => nodeDrainCommand(ctx, name, options)));
  leaf(node, 'rotate-credential <node>')
    .description("rotate the node's key and credential without a gap in heartbeats")
    .option('--key <idempotency-key>', 'the same key joins the same rotation run (default: a new run)')
    .action(
      run((ctx, name: string, options: RotateOptions) => nodeRotateCredentialCommand(ctx, name, options)),
    );

  // -------------------------------------------------------------------------
  const model = group(program, 'model', 'models in the registry (and the fake-runtime shortcut)');
  leaf(model, 'register <name@version>')
    .description('register a model version on the fake runtime (deterministic test runtime)')
    .option('--ttft-ms <ms>', 'fake runtime: time to first token in milliseconds')
    .option('--tokens-per-second <n>', 'fake runtime: generation speed')
    .action(
      run((ctx, ref: string, options: ModelRegisterOptions) => modelRegisterCommand(ctx, ref, options)),
    );
  registerRegistryCommands(program, model, { group, leaf, run });

  registerEvaluationCommands(program, { group, leaf, run });

  // -------------------------------------------------------------------------
  const deploy = group(program, 'deploy', 'deployments: a model version served by replicas on nodes');
  leaf(deploy, 'create <name>')
    .description('create a deployment (starts its workflow); --wait waits until it is Ready')
    .option('--model <name@version>', 'model version to serve (required)')
    .option(
      '--purpose <purpose>',
      'serving (default): Approved for traffic, the same gate as a rollout; candidate: to evaluate a version not approved yet',
    )
    .option('--node <node>', 'place on this node (id or name); default: the scheduler chooses')
    .option('--replicas <n>', 'number of replicas (default 1)')
    .option(
      '--strategy <strategy>',
      'spread (default): least memory claimed, fewest replicas, least load first; binpack: fullest that still fits first',
    )
    .option('--key <idempotency-key>', 'the same key returns the same deployment (default: by name)')
    .option('--wait', 'poll until the deployment is Ready; exit non-zero if it fails or times out')
    .option('--wait-timeout <seconds>', `how long --wait waits (default ${DEFAULT_WAIT_TIMEOUT_SECONDS})`)
    .action(
      run((ctx, name: string, options: DeployCreateOptions) => deployCreateCommand(ctx, name, options)),
    );
  leaf(deploy, 'list')
    .description('list deployments with state and ready replicas')
    .action(run((ctx) => deployListCommand(ctx)));
  leaf(deploy, 'get <name>')
    .description('show one deployment (name or id) with its assignments')
    .action(run((ctx, name: string) => deployGetCommand(ctx, name)));
  leaf(deploy, 'stop <name>')
    .description('stop every replica and wait until the agents report them stopped')
    .action(run((ctx, name: string) => deployStopCommand(ctx, name)));

  const placement = group(program, 'placement', 'the scheduler: where replicas would go and why');
  leaf(placement, 'plan')
    .description('dry run: where replicas of a version would go now and why, for every node; changes nothing')
    .option('--model <name@version>', 'model version to place (required)')
    .option('--replicas <n>', 'number of replicas (default 1)')
    .option('--strategy <strategy>', 'spread (default) or binpack')
    .option('--node <node>', 'only this node (id or name)')
    .option('--deployment <name>', 'add to this deployment (its nodes already run a replica)')
    .action(run((ctx, options: PlacementPlanOptions) => placementPlanCommand(ctx, options)));

  leaf(program, 'heal')
    .description(
      'run one pass of the healing rules (restart crash-looping replicas, re-place unhealthy ones, cordon crashing nodes); every action is receipted',
    )
    .option('--dry-run', 'list what the rules would do now and why; change nothing')
    .option('--max-actions <n>', 'at most this many actions in this pass (default: the configured bound)')
    .option('--key <idempotency-key>', 'idempotency key; the same key returns the same pass')
    .action(run((ctx, options: HealOptions) => healCommand(ctx, options)));

  leaf(program, 'reconcile')
    .description(
      'compare the desired state with the running workflows and agents and repair the drift (after a restore, first); receipted',
    )
    .option('--dry-run', 'list the drift and the repairs a pass would take; change nothing (exit 1 on drift)')
    .option('--key <idempotency-key>', 'idempotency key; the same key returns the same pass')
    .action(run((ctx, options: ReconcileOptions) => reconcileCommand(ctx, options)));

  leaf(program, 'digest')
    .description(
      'hashes of the registry, the desired state and the audit chain, as backup.sh records them beside each dump',
    )
    .option(
      '--compare <file>',
      "compare with a backup's <dump>.digest (after a restore, before reconcile); exit 1 when anything differs",
    )
    .action(run((ctx, options: DigestOptions) => digestCommand(ctx, options)));

  // -------------------------------------------------------------------------
  const alias = group(program, 'alias', 'versioned aliases: the names callers invoke');
  leaf(alias, 'create <name>')
    .description('create an alias (it serves nothing until its first rollout promotes)')
    .option('--data-class <class>', 'data class callers send through it (default internal)')
    .option('--description <text>', 'what the alias is for')
    .action(run((ctx, name: string, options: AliasCreateOptions) => aliasCreateCommand(ctx, name, options)));
  leaf(alias, 'list')
    .description('list aliases with the version each serves and any rollout in progress')
    .action(run((ctx) => aliasListCommand(ctx)));
  leaf(alias, 'get <name>')
    .description('show an alias with its revision history')
    .action(run((ctx, name: string) => aliasGetCommand(ctx, name)));

  const rollout = group(
    program,
    'rollout',
    'rollouts: move an alias to a model version through canary steps',
  );
  leaf(rollout, 'start <alias> <name@version>')
    .description(
      'start a rollout (policy and digest checks, canary steps with analysis, promotion or rollback)',
    )
    .option(
      '--steps <weights>',
      'canary weights in percent, comma separated, ending at 100 (default 10,50,100)',
    )
    .option('--window <seconds>', 'analysis window per step (default 60)')
    .option('--samples <n>', 'canary requests each step is judged on (default 20)')
    .option(
      '--bake <seconds>',
      'keep the old version running after promotion for an instant rollback (default 0)',
    )
    .option('--replicas <n>', 'replicas of the new version (default 1)')
    .option('--key <idempotency-key>', 'the same key returns the same rollout (default: a new rollout)')
    .option('--wait', 'poll until the rollout finishes; exit non-zero unless it promoted')
    .option('--wait-timeout <seconds>', 'how long --wait waits (default 1800)')
    .action(
      run((ctx, aliasName: string, ref: string, options: RolloutStartOptions) =>
        rolloutStartCommand(ctx, aliasName, ref, options),
      ),
    );
  leaf(rollout, 'get <id>')
    .description('show a rollout: steps, analyses and receipts')
    .action(run((ctx, id: string) => rolloutGetCommand(ctx, id)));
  leaf(rollout, 'list')
    .description('list rollouts, newest first')
    .option('--alias <name>', 'only this alias')
    .action(run((ctx, options: { alias?: string }) => rolloutListCommand(ctx, options)));
  leaf(rollout, 'signal <action> <id>')
    .description('promote | rollback | pause | resume | abort a running rollout')
    .option('--reason <text>', 'recorded with the receipt')
    .action(
      run((ctx, action: string, id: string, options: { reason?: string }) =>
        rolloutSignalCommand(ctx, parseRolloutAction(action), id, options),
      ),
    );

  // -------------------------------------------------------------------------
  const policy = group(program, 'policy', 'policies');
  const dataPolicy = group(
    policy,
    'data',
    'tenant data policies: data class, payload retention, evaluation-capture consent',
  );
  leaf(dataPolicy, 'list')
    .description('list configured tenant data policies (tenants not listed get the default)')
    .action(run((ctx) => dataPolicyListCommand(ctx)));
  leaf(dataPolicy, 'get <tenant>')
    .description("show a tenant's data policy (the default when none was set)")
    .action(run((ctx, tenant: string) => dataPolicyGetCommand(ctx, tenant)));
  leaf(dataPolicy, 'set <tenant>')
    .description('REPLACE a tenant data policy (admin); options left out take the default')
    .option('--data-class <class>', `${DATA_CLASSES.join(' | ')} (default internal)`)
    .option(
      '--retention <none|days>',
      'keep completed payloads this many days, e.g. 30 or 30d (default none)',
    )
    .option('--evaluation-capture', 'explicit consent to keep completed payloads for evaluation')
    .option('--no-evaluation-capture', 'no evaluation capture (the default)')
    .action(
      run((ctx, tenant: string, options: DataPolicySetOptions) => dataPolicySetCommand(ctx, tenant, options)),
    );

  // -------------------------------------------------------------------------
  registerTenancyCommands(program, { group, leaf, run });
  registerSigningCommands(program, { group, leaf, run });
  registerControllerKeyCommands(program, { group, leaf, run });
  registerEvidenceCommands(program, { group, leaf, run });

  // -------------------------------------------------------------------------
  leaf(program, 'invoke <model>')
    .description(
      'stream a chat answer from the gateway, token by token; <model> is an alias or <name>@<version>',
    )
    .option('--prompt <text>', 'the user message (required)')
    .option(
      '--gateway-url <url>',
      `gateway base URL (env ${GATEWAY_URL_ENV}, default ${DEFAULT_GATEWAY_URL})`,
    )
    .addOption(
      new Option('--api <dialect>', 'wire format: OpenAI-compatible or the generic workload API').choices(
        INVOKE_APIS,
      ),
    )
    .option(
      '--gateway-key-file <path>',
      `call as a tenant with the gateway key in this file (env ${GATEWAY_KEY_ENV} or ${GATEWAY_KEY_FILE_ENV}); default: your operator token`,
    )
    .option('--max-tokens <n>', 'at most this many generated tokens')
    .option('--seed <n>', 'sampling seed (same seed, prompt and version: same answer on the fake runtime)')
    .addOption(
      new Option(
        '--data-class <class>',
        'data class of the prompt (default: the gateway default, confidential)',
      ).choices(DATA_CLASSES),
    )
    .addHelpText(
      'after',
      '\nTokens are written to stdout as they arrive. The whole answer must arrive within the\n' +
        `global --timeout (default ${DEFAULT_INVOKE_TIMEOUT_MS} ms for invoke). With --json, one document is\n` +
        'printed at the end: {text, chunks, timeToFirstChunkMs, totalMs, model, requestId,\n' +
        'finishReason, usage, gatewayUrl}.\n\n' +
        'Example:\n  lunanexa invoke demo@v1 --prompt "Name three uses of unified memory." --max-tokens 64\n',
    )
    .action(run((ctx, target: string, options: InvokeOptions) => invokeCommand(ctx, target, options)));

  return program;
}
