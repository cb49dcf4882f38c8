import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { verifyEvidenceBundle, type EvidenceVerification } from '@lunanexa/audit';
import { waitingTimeoutMs, type CommandContext } from '../context';
import { CliError, CliErrorCode, ExitCode, usageError } from '../errors';
import { formatFields, writeJson } from '../output';

/**
 * `lunanexa evidence export|verify`: a release's evidence bundle
 * (docs/OPERATIONS.md "Export and verify a release's evidence"). `export`
 * downloads it from `GET /v1/evidence/<alias>`; `verify` needs nothing but
 * the file — the format and the checks are libs/audit evidence-bundle.ts.
 */

export const EVIDENCE_PATH = 'v1/evidence';
/** Assembling a bundle walks the whole audit chain once. */
const EXPORT_TIMEOUT_MS = 120_000;

export interface EvidenceExportOptions {
  readonly revision?: string;
  readonly out?: string;
}

export interface EvidenceVerifyOptions {
  readonly publicKey?: string;
  readonly fingerprint?: string;
}

function readBundle(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw usageError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function summary(file: string, verification: EvidenceVerification): string {
  const manifest = verification.manifest;
  if (!manifest) return '';
  return formatFields([
    ['bundle', file],
    ['alias', `${manifest.alias.name} revision ${manifest.revision} (${manifest.modelRef})`],
    ['created', `${manifest.createdAt} by ${manifest.createdBy}`],
    ['signed by', `controller key ${manifest.controllerKey.sshFingerprint}`],
    ['signer pinned', verification.signerPinned ? 'yes' : 'no (pass --fingerprint or --public-key)'],
    ['files', `${verification.filesChecked} checked (sha256 and size)`],
    ['audit events', `${verification.auditEventsChecked} re-hashed`],
    ['artifact signature', verification.artifactSignature],
  ]);
}

function failure(file: string, verification: EvidenceVerification): CliError {
  const [first, ...rest] = verification.problems.map((problem) => ({
    code: CliErrorCode.EVIDENCE_INVALID,
    message: `${file}: ${problem.file}: ${problem.reason}`,
  }));
  return new CliError(first ? [first, ...rest] : { code: CliErrorCode.EVIDENCE_INVALID, message: file });
}

export async function evidenceExportCommand(
  ctx: CommandContext,
  alias: string,
  options: EvidenceExportOptions,
): Promise<ExitCode> {
  if (options.revision !== undefined && !/^[1-9][0-9]*$/.test(options.revision)) {
    throw usageError(`--revision must be a whole number from 1, not ${JSON.stringify(options.revision)}`);
  }
  const query = options.revision === undefined ? '' : `?revision=${options.revision}`;
  const answer = await ctx.api.download(
    `${EVIDENCE_PATH}/${encodeURIComponent(alias)}${query}`,
    'application/gzip',
    { timeoutMs: waitingTimeoutMs(ctx, EXPORT_TIMEOUT_MS) },
  );
  // What was downloaded is checked before it is written: a bundle that does not verify is not evidence.
  const verification = verifyEvidenceBundle(answer.bytes);
  const out = options.out ?? answer.fileName ?? `evidence-${alias}.tar.gz`;
  if (!verification.valid) throw failure(`downloaded bundle (request ${answer.requestId})`, verification);
  try {
    writeFileSync(out, answer.bytes, { flag: 'wx', mode: 0o644 });
  } catch (error) {
    throw usageError(`cannot write ${out}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (ctx.json) {
    writeJson(ctx.io.stdout, { file: out, bytes: answer.bytes.length, manifest: verification.manifest });
  } else {
    ctx.io.stdout(`${summary(out, verification)}wrote ${answer.bytes.length} bytes to ${out}\n`);
  }
  return ExitCode.OK;
}

export function evidenceVerifyCommand(
  ctx: CommandContext,
  file: string,
  options: EvidenceVerifyOptions,
): Promise<ExitCode> {
  if (options.fingerprint !== undefined && !/^SHA256:[A-Za-z0-9+/]{43}$/.test(options.fingerprint.trim())) {
    throw usageError('--fingerprint must be an OpenSSH SHA256 fingerprint (SHA256:<43 base64 characters>)');
  }
  const publicKeyPem =
    options.publicKey === undefined ? undefined : readBundle(options.publicKey).toString('utf8');
  const verification = verifyEvidenceBundle(readBundle(file), {
    ...(publicKeyPem === undefined ? {} : { publicKeyPem }),
    ...(options.fingerprint === undefined ? {} : { fingerprint: options.fingerprint }),
  });
  if (!verification.valid) throw failure(file, verification);
  if (ctx.json) writeJson(ctx.io.stdout, { file, ...verification });
  else ctx.io.stdout(`${summary(file, verification)}verified\n`);
  return Promise.resolve(ExitCode.OK);
}

interface Registrar {
  readonly group: (parent: Command, name: string, description: string) => Command;
  readonly leaf: (parent: Command, nameAndArgs: string) => Command;
  readonly run: <A extends unknown[]>(
    work: (ctx: CommandContext, ...args: A) => Promise<number>,
  ) => (this: Command, ...args: A) => Promise<void>;
}

export function registerEvidenceCommands(program: Command, { group, leaf, run }: Registrar): void {
  const evidence = group(
    program,
    'evidence',
    "a release's evidence bundle: one signed archive an auditor verifies offline",
  );
  leaf(evidence, 'export <alias>')
    .description(
      'download the evidence bundle of an alias revision (read role); it is verified before it is written',
    )
    .option('--revision <n>', 'the alias revision (default: the one it serves now)')
    .option('--out <file>', 'where to write it (default evidence-<alias>-r<n>.tar.gz; never overwritten)')
    .action(
      run((ctx, alias: string, options: EvidenceExportOptions) => evidenceExportCommand(ctx, alias, options)),
    );
  leaf(evidence, 'verify <file>')
    .description(
      'verify a bundle offline: manifest signature, every file hash and size, no file missing or added, the audit chain re-hashed',
    )
    .option(
      '--public-key <pem-file>',
      "require the controller's public key in this PEM file to have signed it",
    )
    .option(
      '--fingerprint <SHA256:…>',
      'require the signer to be the controller key with this fingerprint (what `node token create` prints)',
    )
    .addHelpText(
      'after',
      '\nExit 0 when the bundle verifies; 1 (error[EVIDENCE_INVALID]) naming each file that does not.\n' +
        'Without --public-key or --fingerprint, the signature proves integrity, not who signed it.\n\n' +
        'Example:\n  lunanexa evidence verify evidence-chat-r3.tar.gz --fingerprint SHA256:…\n',
    )
    .action(
      run((ctx, file: string, options: EvidenceVerifyOptions) => evidenceVerifyCommand(ctx, file, options)),
    );
}
