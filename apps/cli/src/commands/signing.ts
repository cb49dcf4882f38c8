import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { DIGEST_PATTERN } from '@lunanexa/contracts';
import {
  artifactSigningStatement,
  parseEd25519PublicKey,
  signingKeyFingerprint,
} from '@lunanexa/credentials';
import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { z } from 'zod';
import type { CommandContext } from '../context';
import type { CommandRegistrars } from './registration';
import { ExitCode, usageError } from '../errors';
import { formatFields, formatTable, writeJson } from '../output';

/**
 * `lunanexa signing-key …` and `lunanexa sign-artifact`: Ed25519 keys that
 * vouch for model artifacts (docs/OPERATIONS.md "Artifact signatures").
 * `generate` and `sign-artifact` run locally — the private key never leaves
 * the operator's machine; `register`, `revoke` and `tenant-policy` are admin
 * mutations. What is signed is libs/credentials `artifactSigningStatement`.
 */

/** The signing operations (libs/sdk/graphql/cli/signing.graphql, validated against apps/api/schema.gql by `npm run sdk:generate`). */
export const SIGNING_DOCUMENTS = {
  trustedSigningKeys: Operations.TrustedSigningKeysDocument.document,
  registerSigningKey: Operations.RegisterSigningKeyDocument.document,
  revokeSigningKey: Operations.RevokeSigningKeyDocument.document,
  setTenantUnsignedPolicy: Operations.SetTenantUnsignedPolicyDocument.document,
} as const;

type Key = z.infer<typeof Results.TrustedSigningKeysQuerySchema>['trustedSigningKeys'][number];

function readText(path: string | undefined, what: string): string {
  if (path === undefined) throw usageError(`${what} is required`);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function renderKey(key: Key): string {
  return formatFields([
    ['key id', key.keyId],
    ['label', key.label],
    ['public key', key.publicKey],
    ['created', `${key.createdAt} by ${key.createdBy}`],
    ['revoked', key.revokedAt === null ? 'no' : `${key.revokedAt} by ${key.revokedBy ?? '?'}`],
  ]);
}

/** Writes a new Ed25519 private key (PEM, 0600) and prints its public key (PEM) and key id. */
export function signingKeyGenerateCommand(ctx: CommandContext, options: { out?: string }): Promise<ExitCode> {
  if (options.out === undefined) throw usageError('--out <private-key.pem> is required');
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  try {
    writeFileSync(options.out, privateKey.export({ format: 'pem', type: 'pkcs8' }), {
      mode: 0o600,
      flag: 'wx',
    });
  } catch (error) {
    throw usageError(
      `cannot write ${options.out}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const raw = parseEd25519PublicKey(pem);
  const keyId = raw === null ? '?' : signingKeyFingerprint(raw);
  if (ctx.json) writeJson(ctx.io.stdout, { keyId, publicKeyPem: pem, privateKeyFile: options.out });
  else {
    ctx.io.stdout(pem);
    ctx.io.stderr(`key id ${keyId}; private key written to ${options.out} (keep it secret)\n`);
  }
  return Promise.resolve(ExitCode.OK);
}

/**
 * Signs an artifact's digest and size with a private key file and prints the
 * `signature` object for a model version spec's artifact.
 */
export function signArtifactCommand(
  ctx: CommandContext,
  options: { key?: string; digest?: string; size?: string },
): Promise<ExitCode> {
  const pem = readText(options.key, '--key <private-key.pem>');
  if (options.digest === undefined || !DIGEST_PATTERN.test(options.digest))
    throw usageError('--digest must be sha256:<64 lower-case hex digits>');
  const sizeBytes = Number(options.size);
  if (options.size === undefined || !/^[0-9]+$/.test(options.size) || !Number.isSafeInteger(sizeBytes))
    throw usageError('--size must be the artifact size in bytes');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw usageError(`${options.key ?? ''} is not a PEM private key`);
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw usageError('the key must be an Ed25519 private key');
  const raw = parseEd25519PublicKey(
    createPublicKey(privateKey).export({ format: 'pem', type: 'spki' }).toString(),
  );
  if (raw === null) throw usageError('cannot derive the public key');
  const signature = {
    algorithm: 'ed25519',
    keyId: signingKeyFingerprint(raw),
    value: sign(null, artifactSigningStatement({ digest: options.digest, sizeBytes }), privateKey).toString(
      'base64',
    ),
  };
  writeJson(ctx.io.stdout, signature);
  return Promise.resolve(ExitCode.OK);
}

export async function signingKeyListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(
    SIGNING_DOCUMENTS.trustedSigningKeys,
    {},
    Results.TrustedSigningKeysQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.trustedSigningKeys);
  else
    ctx.io.stdout(
      formatTable(
        ['KEY ID', 'LABEL', 'CREATED', 'REVOKED'],
        data.trustedSigningKeys.map((k) => [k.keyId, k.label, k.createdAt, k.revokedAt ?? '-']),
      ),
    );
  return ExitCode.OK;
}

export async function signingKeyRegisterCommand(
  ctx: CommandContext,
  options: { publicKey?: string; label?: string },
): Promise<ExitCode> {
  const publicKey = readText(options.publicKey, '--public-key <file>');
  if (options.label === undefined) throw usageError('--label <text> is required');
  const { data, requestId } = await ctx.api.graphql(
    SIGNING_DOCUMENTS.registerSigningKey,
    { input: { publicKey, label: options.label } },
    Results.RegisterSigningKeyMutationSchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, { ...data.registerSigningKey, requestId });
  else ctx.io.stdout(renderKey(data.registerSigningKey));
  return ExitCode.OK;
}

export async function signingKeyRevokeCommand(ctx: CommandContext, keyId: string): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    SIGNING_DOCUMENTS.revokeSigningKey,
    { keyId },
    Results.RevokeSigningKeyMutationSchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, { ...data.revokeSigningKey, requestId });
  else ctx.io.stdout(renderKey(data.revokeSigningKey));
  return ExitCode.OK;
}

export async function tenantSigningPolicyCommand(
  ctx: CommandContext,
  tenantId: string,
  policy: string,
): Promise<ExitCode> {
  if (policy !== 'allow-unsigned' && policy !== 'require-signed')
    throw usageError('the policy is allow-unsigned or require-signed');
  const { data, requestId } = await ctx.api.graphql(
    SIGNING_DOCUMENTS.setTenantUnsignedPolicy,
    { tenantId, allow: policy === 'allow-unsigned' },
    Results.SetTenantUnsignedPolicyMutationSchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, { ...data.setTenantUnsignedPolicy, requestId });
  else
    ctx.io.stdout(
      formatFields([
        ['tenant', data.setTenantUnsignedPolicy.tenantId],
        ['unsigned versions', data.setTenantUnsignedPolicy.allowUnsignedVersions ? 'allowed' : 'refused'],
      ]),
    );
  return ExitCode.OK;
}

export function registerSigningCommands(program: Command, { group, leaf, run }: CommandRegistrars): void {
  const key = group(
    program,
    'signing-key',
    'Ed25519 keys trusted to sign model artifacts (register/revoke/tenant-policy: admin)',
  );
  leaf(key, 'generate')
    .description('write a new Ed25519 private key (PEM, 0600) and print its public key and key id (local)')
    .option('--out <file>', 'where to write the private key (must not exist)')
    .action(run((ctx, options: { out?: string }) => signingKeyGenerateCommand(ctx, options)));
  leaf(key, 'list')
    .description('list trusted signing keys, revoked ones included')
    .action(run((ctx) => signingKeyListCommand(ctx)));
  leaf(key, 'register')
    .description(
      'trust a public key (PEM or base64 raw) to sign artifacts (admin); its id is its fingerprint',
    )
    .option('--public-key <file>', 'the public key file')
    .option('--label <text>', 'what holds the private key, e.g. release-ci')
    .action(
      run((ctx, options: { publicKey?: string; label?: string }) => signingKeyRegisterCommand(ctx, options)),
    );
  leaf(key, 'revoke <keyId>')
    .description('revoke a key (admin): nothing it signed deploys or starts from now on')
    .action(run((ctx, keyId: string) => signingKeyRevokeCommand(ctx, keyId)));
  leaf(key, 'tenant-policy <tenant> <allow-unsigned|require-signed>')
    .description("set whether unsigned versions may roll out onto aliases the tenant's keys call (admin)")
    .action(run((ctx, tenant: string, policy: string) => tenantSigningPolicyCommand(ctx, tenant, policy)));
  leaf(program, 'sign-artifact')
    .description(
      'sign an artifact digest and size with a private key file; prints the signature JSON (local)',
    )
    .option('--key <file>', 'the Ed25519 private key (PEM)')
    .option('--digest <sha256:…>', "the artifact's digest")
    .option('--size <bytes>', "the artifact's size in bytes")
    .action(
      run((ctx, options: { key?: string; digest?: string; size?: string }) =>
        signArtifactCommand(ctx, options),
      ),
    );
}
