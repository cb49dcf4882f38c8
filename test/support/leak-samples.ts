import { createHash } from 'node:crypto';
import type { LeakKind } from '@lunanexa/e2e/dist/src/leak-scan';

/**
 * Synthetic leaks for the scanner's self-tests. Every sample is assembled at
 * run time from fragments and deterministic digests, so this file (which the
 * repository scan reads like any other) contains no leak itself.
 */

const j = (...parts: string[]): string => parts.join('');

/** Deterministic pseudo-random material: sha256 of a label. */
const hex = (label: string): string => createHash('sha256').update(label).digest('hex');
const base64 = (label: string): string => createHash('sha256').update(label).digest('base64');
const base64url = (value: string): string => Buffer.from(value).toString('base64url');

const family = j('Mo', 'on');
const pemHeader = (type: string): string => j('-----', 'BEGIN ', type, 'PRIVATE ', 'KEY', '-----');

/** At least one line per detector that must fire, with the kind it must fire as. */
export const LEAKING: readonly { readonly kind: LeakKind; readonly text: string }[] = [
  { kind: 'product-name', text: j('import { client } from "@acme/', family.toLowerCase(), 'gate-sdk";') },
  { kind: 'product-name', text: j('Routed through ', family, 'Suite today.') },
  { kind: 'product-name', text: j('const ', family.toUpperCase(), '_GATE_URL = 1;') },
  { kind: 'product-name', text: j('class Fake', family, '-Gate {}') },
  {
    kind: 'private-key',
    text: j(pemHeader(''), '\n', base64('k1'), base64('k2'), '\n', '-----END PRIVATE KEY-----'),
  },
  {
    kind: 'private-key',
    text: j("const pem = '", pemHeader('OPENSSH '), '\\n', base64('k3'), base64('k4'), "';"),
  },
  {
    kind: 'aws-access-key',
    text: j('aws_access_key_id = ', 'AK', 'IA', hex('aws').slice(0, 16).toUpperCase()),
  },
  { kind: 'github-token', text: j('GH_TOKEN: ', 'gh', 'p_', hex('gh').slice(0, 36)) },
  {
    kind: 'github-token',
    text: j('auth ', 'github', '_pat_', hex('pat1').slice(0, 22), '_', hex('pat2').slice(0, 59)),
  },
  {
    kind: 'jwt',
    text: j(
      'Authorization: Bearer ',
      base64url('{"alg":"HS256","typ":"JWT"}'),
      '.',
      base64url('{"sub":"operator-1","exp":1893456000}'),
      '.',
      base64('sig').replace(/[+/=]/g, ''),
    ),
  },
  { kind: 'credential-assignment', text: j('DATABASE_', 'PASSWORD', '=', 'p4ss-', hex('pw').slice(0, 12)) },
  {
    kind: 'credential-assignment',
    text: j('GET /callback?access_', 'token', '=', hex('at').slice(0, 20), '&x=1'),
  },
  {
    kind: 'credential-assignment',
    text: j('lunanexa node enroll --', 'secret', '=', 'S3cr3t-', hex('s').slice(0, 8)),
  },
  { kind: 'secret-literal', text: j('const nodeSigning', 'Key = "', hex('signing'), '";') },
  { kind: 'secret-literal', text: j('{ "api', 'Key": "', base64('api'), '" }') },
  { kind: 'secret-literal', text: j('bootstrap', 'Token: `', hex('bt').slice(0, 40), '`,') },
  { kind: 'machine-path', text: j('key file: /ho', 'me/alice/.ssh/id_ed25519') },
  { kind: 'machine-path', text: j('"modelDir": "/Us', 'ers/bob/models"') },
  { kind: 'machine-path', text: j('HOME=/ro', 'ot') },
  { kind: 'machine-path', text: j('cache at /ro', 'ot/.cache/lunanexa') },
  { kind: 'machine-path', text: j('cwd: /wo', 'rk/main/.data') },
  { kind: 'machine-path', text: j('C:', '\\\\', 'Users', '\\\\', 'carol\\\\models') },
  { kind: 'machine-path', text: j('C:', '\\', 'Users', '\\', 'carol\\models') },
];

/** Lines that look close to a leak but are not one: no detector may fire. */
export const CLEAN: readonly { readonly why: string; readonly text: string }[] = [
  { why: 'labelled sha256 digest', text: j('digest: "sha256:', hex('model'), '"') },
  { why: 'image pinned by digest', text: j('image: runtime/vllm@sha256:', hex('image')) },
  { why: 'digest of a token, named as a hash', text: j('token', 'Hash: "', hex('tokenhash'), '"') },
  { why: 'secret digest labelled sha256', text: j('secret', 'Digest = "sha256:', hex('sd'), '"') },
  { why: 'token= with a labelled digest', text: j('token', '=sha256:', hex('tk')) },
  { why: 'git commit sha', text: j('commit ', hex('commit').slice(0, 40)) },
  { why: 'template placeholder', text: j('?token', '=${bootstrapToken}') },
  { why: 'upper-case placeholder', text: j('DATABASE_PASSWORD', '=REPLACE_WITH_A_PASSWORD') },
  { why: 'function call in code', text: j('const url = `x?token', '=generateBootstrapToken()`') },
  { why: 'property path in code', text: j('token', '=this.config.auth.token') },
  { why: 'comparison', text: j('if (token', '===expectedTokenValue) {}') },
  { why: 'type annotation', text: j('secret', ': string;') },
  { why: 'repeated padding', text: j('secret', ': "', '0'.repeat(64), '"') },
  { why: 'model path named tokenizer', text: j('tokenizer: "mistralai/Mistral-Nemo-Instruct-2407"') },
  { why: 'short password', text: j('pass', 'word', '=postgres') },
  { why: 'AWS documentation sample key', text: j('AK', 'IA', 'IOSFODNN7', 'EXAMPLE') },
  { why: 'PEM header without a key body', text: j("if (pem.startsWith('", pemHeader(''), "')) {") },
  { why: 'URL path', text: j('https://example.com/ho', 'me/alice/x and http://localhost:3000/wo', 'rk/1') },
  { why: 'placeholder home path', text: j('/ho', 'me/<user>/.lunanexa') },
  { why: 'relative and tilde paths', text: j('./wo', 'rk/x ~/models $HOME/wo', 'rk /workspace/x') },
  { why: 'environment working directory', text: j('P', 'WD=.') },
  { why: 'unrelated moon words', text: j('moon', 'light ', 'moon', 'walk gate', 'way suite') },
];

/** A one-file sample whose findings have known positions. */
export const POSITIONED = {
  text: j('line one\n', 'second: /ho', 'me/dave/x\n', '  third ', family, 'Gate\n'),
  expected: [
    { kind: 'machine-path', line: 2, column: 9 },
    { kind: 'product-name', line: 3, column: 9 },
  ],
} as const;

/** A secret whose redacted excerpt must not reveal it. */
export const REDACTION_SECRET = j('gh', 'p_', hex('redact').slice(0, 36));

/** A path in the root user's home: allowed where an allow entry says so, reported everywhere else. */
export const ROOT_PATH_LINE = j('WorkingDirectory=/ro', 'ot/lunanexa');
export const ROOT_PATH = j('/ro', 'ot');
export const HOME_PATH_LINE = j('WorkingDirectory=/ho', 'me/dave/lunanexa');
