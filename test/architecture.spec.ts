import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  checkArchitecture,
  collectImports,
  formatViolation,
  type RuleId,
  type Violation,
} from './support/import-graph';
import { findRepoRoot } from './support/repo';

// Sibling-product package names, assembled so this file does not spell them.
const GATE_SDK = ['@acme/', 'moon', 'gate', '-sdk'].join('');
const SUITE_CLIENT = ['moon', '-', 'suite', '-client'].join('');

/** One source line, and the rule it must break (none: it must pass). */
type Planted = readonly [code: string, rule?: RuleId];

/**
 * A synthetic repository that breaks every rule once per import form, next to
 * imports that are allowed. Line numbers come from the position in each list.
 */
const SOURCES: Readonly<Record<string, readonly Planted[]>> = {
  'workflows/src/x.ts': [
    ["import { readFileSync } from 'fs';", 'workflows-no-node-builtins'],
    ["import { Connection } from '@temporalio/client';", 'workflows-no-io-packages'],
    ["import { createActivities } from '@lunanexa/activities';", 'workflows-activities-type-only'],
    ["import { proxyActivities } from '@temporalio/workflow';"],
    ["import { ApplicationFailure } from '@temporalio/common';"],
    ["import { ErrorCode } from '@lunanexa/contracts';"],
    ["import { transition } from '@lunanexa/domain/dist/src/node';"],
    ["import { helper } from './helper';"],
    ["import { randomUUID } from 'node:crypto';", 'workflows-no-node-builtins'],
    ["const os = require('os');", 'workflows-no-node-builtins'],
    ["import { Pool } from 'pg';", 'workflows-no-io-packages'],
    ["import { Injectable } from '@nestjs/common';", 'workflows-no-io-packages'],
    ["import type { Worker } from '@temporalio/worker';", 'workflows-no-io-packages'],
    ["import { AppModule } from '@lunanexa/api';", 'workflows-no-apps'],
    ["import { debounce } from 'lodash';", 'workflows-only-allowed-imports'],
    ["import { Entity } from '@lunanexa/persistence';", 'workflows-only-allowed-imports'],
    ["import { plan } from '../../libs/domain/src/plan';", 'workflows-only-allowed-imports'],
    ["export * from '@lunanexa/activities';", 'workflows-activities-type-only'],
    ['void import(moduleName);', 'restricted-zone-non-literal-import'],
    ["type Files = typeof import('fs/promises');", 'workflows-no-node-builtins'],
    ["import { startTestTemporal } from '@lunanexa/e2e';", 'workflows-only-allowed-imports'],
    // Only the sandbox half of the OTel interceptors package; its root loads the worker and client halves.
    [
      "import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';",
      'workflows-only-allowed-imports',
    ],
  ],
  'workflows/src/helper.ts': [['export const helper = 1;']],
  'workflows/src/allowed.ts': [
    ["import type { Activities } from '@lunanexa/activities';"],
    ["import { type Activities as Same } from '@lunanexa/activities';"],
    ["export type { Activities as Again } from '@lunanexa/activities';"],
    ["import { proxyActivities } from '@temporalio/workflow';"],
    [
      "import { OpenTelemetryInboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/workflow';",
    ],
  ],
  // Tests of workflows may use the test server and Node; only the direction rule applies.
  'workflows/test/ping.test.ts': [
    ["import { TestWorkflowEnvironment } from '@temporalio/testing';"],
    ["import { Worker } from '@temporalio/worker';"],
    ["import { readFileSync } from 'node:fs';"],
    ["import { createActivities } from '@lunanexa/activities';"],
    ["import { startTestTemporal } from '@lunanexa/e2e';"],
    ["import { bootstrap } from '@lunanexa/worker';", 'workflows-no-apps'],
  ],
  'libs/domain/src/y.ts': [
    ["import { Pool } from 'pg';", 'pure-libs-no-io-packages'],
    ["import { z } from 'zod';"],
    ["import { ErrorCode } from '@lunanexa/contracts';"],
    ["import { next } from './state';"],
    ["import { createHash } from 'node:crypto';", 'pure-libs-no-node-builtins'],
    ["import { readFile } from 'fs/promises';", 'pure-libs-no-node-builtins'],
    ["import { pingWorkflow } from '@lunanexa/workflows';", 'libs-no-upward-imports'],
    ["import pino from 'pino';", 'pure-libs-no-io-packages'],
    ["import axios from 'axios';", 'pure-libs-no-io-packages'],
    ["import { Counter } from 'prom-client';", 'pure-libs-no-io-packages'],
    ["import { sleep } from '@temporalio/workflow';", 'pure-libs-no-io-packages'],
    ["import { format } from 'date-fns';", 'pure-libs-only-allowed-imports'],
    ['const m = require(name);', 'restricted-zone-non-literal-import'],
  ],
  'libs/contracts/src/c.ts': [
    ["import { z } from 'zod';"],
    ["import { z as z4 } from 'zod/v4';"],
    ["import { canTransition } from '@lunanexa/domain';", 'pure-libs-only-allowed-imports'],
    ["import type { Request } from 'express';", 'pure-libs-no-io-packages'],
    ["import { other } from '../../domain/src/other';", 'pure-libs-only-allowed-imports'],
  ],
  'libs/contracts/test/c.spec.ts': [["import { readFileSync } from 'node:fs';"]],
  'libs/audit/src/a.ts': [
    ["import { createHash } from 'node:crypto';"],
    ["import { Pool } from 'pg';"],
    ["import { ErrorCode } from '@lunanexa/contracts';"],
    ["import { AppModule } from '@lunanexa/api';", 'libs-no-upward-imports'],
    ["import type { Activities } from '@lunanexa/activities';", 'libs-no-upward-imports'],
  ],
  'libs/audit/test/a.spec.ts': [
    ["import { seed } from '../../../apps/api/src/seed';", 'libs-no-upward-imports'],
    ["import { scenario } from '@lunanexa/e2e';", 'libs-no-upward-imports'],
  ],
  'activities/src/index.ts': [
    ["import type { pingWorkflow } from '@lunanexa/workflows';"],
    ["import { pingWorkflow as run } from '@lunanexa/workflows';", 'activities-no-workflow-values'],
    ["import { Pool } from 'pg';"],
    ["import { readFile } from 'node:fs/promises';"],
    ["import { bootstrap } from '@lunanexa/worker';", 'activities-no-apps'],
    ["import { cli } from '../../apps/cli/src/main';", 'activities-no-apps'],
  ],
  'apps/api/src/main.ts': [
    ["import { pingWorkflow } from '@lunanexa/workflows';"],
    ["import { createActivities } from '@lunanexa/activities';"],
    [`import { Gate } from '${GATE_SDK}';`, 'no-moon-dependency'],
  ],
  // A feature reaches another only through its index.ts; common/ and infrastructure/ are open to all.
  'apps/api/src/rollouts/rollouts.service.ts': [
    ["import { NodesService } from '../nodes/nodes.service';", 'api-feature-internals'],
    ["import { assignmentView } from '../deployments';"],
    ["import { Assignment } from '../deployments/index';"],
    ["import { callerOf } from '../common/caller';"],
    ["import { WorkflowRunner } from '../infrastructure/workflow-runner';"],
    ["import { API_CONFIG } from '../config';"],
    ["import { RolloutsResolver } from './rollouts.resolver';"],
    ["import type { FleetNode } from '../nodes/nodes.types';", 'api-feature-internals'],
    ["export { nodeView } from '../nodes/views';", 'api-feature-internals'],
    ["const views = require('../deployments/views');", 'api-feature-internals'],
  ],
  'apps/api/src/auth/dto/operator.types.ts': [["import type { Principal } from '../principal';"]],
  // The composition root wires every feature's module; tests may reach any file.
  'apps/api/src/app.module.ts': [["import { NodesModule } from './nodes/nodes.module';"]],
  'apps/api/test/nodes.int.ts': [["import { NodesService } from '../src/nodes/nodes.service';"]],
  // SQL is a named function of libs/persistence; production code elsewhere only calls those.
  'apps/gateway/src/log.ts': [
    ['const sql = `SELECT id, name FROM nodes WHERE id = $1`;', 'sql-outside-persistence'],
    ["await pool.query('LISTEN lunanexa_events');", 'sql-outside-persistence'],
    ['const rows = await this.db.query(statement, [id]);', 'sql-outside-persistence'],
    ['const repo = manager.getRepository(NodeEntity);', 'sql-outside-persistence'],
    ['await insertRequestRecords(queryableOf(this.pool), batch);'],
    ["const message = 'Select a deployment to see its traffic, or update its labels';"],
    ['const status = await handle.query(statusQuery);'],
    ['const insert = `insert into request_records (id) values ($1)`;', 'sql-outside-persistence'],
    ['const drop = "DELETE FROM payload_captures WHERE expires_at < now()";', 'sql-outside-persistence'],
    ['const upd = `UPDATE nodes SET cordoned = true WHERE id = ${id}`;', 'sql-outside-persistence'],
    ['const cte = `WITH recent AS (SELECT 1) SELECT * FROM recent`;', 'sql-outside-persistence'],
  ],
  'libs/persistence/src/nodes.ts': [['const sql = `SELECT id, name FROM nodes WHERE id = $1`;']],
  'libs/persistence/src/migrations/1-initial.ts': [["await queryRunner.query('DELETE FROM nodes');"]],
  'apps/gateway/test/log.int.ts': [["await pool.query('DELETE FROM request_records');"]],
  // No exception is left: bench seed data goes through libs/persistence like everything else.
  'apps/gateway/bench/seed.ts': [
    ["await pool.query('INSERT INTO nodes (id) VALUES ($1)', [id]);", 'sql-outside-persistence'],
  ],
  'console/src/app/app.ts': [
    ["import { Component } from '@angular/core';"],
    [`import { client } from '${SUITE_CLIENT}';`, 'no-moon-dependency'],
  ],
  'scripts/start.mjs': [[`const sdk = await import('${GATE_SDK}/node');`, 'no-moon-dependency']],
  // Build output, installs and caches are never scanned.
  'workflows/dist/src/x.js': [["const fs = require('fs');"]],
  'node_modules/leftover/index.ts': [[`import '${GATE_SDK}';`]],
  'console/.angular/cache/x.ts': [[`import '${GATE_SDK}';`]],
};

/** Manifests, and the dependency in each that must be reported (none: must pass). */
const MANIFESTS: Readonly<Record<string, readonly [manifest: object, offending?: string]>> = {
  'package.json': [
    {
      name: 'synthetic',
      private: true,
      workspaces: ['libs/*', 'workflows', 'activities', 'apps/*'],
      dependencies: { zod: '^4.0.0', [GATE_SDK]: '^1.0.0' },
    },
    GATE_SDK,
  ],
  'apps/api/package.json': [
    { name: '@lunanexa/api', devDependencies: { [SUITE_CLIENT]: '1.0.0' } },
    SUITE_CLIENT,
  ],
  // An npm alias hides the name in the version spec.
  'console/package.json': [
    { name: 'console', dependencies: { sdk: `npm:${GATE_SDK}@1.0.0` } },
    `npm:${GATE_SDK}@1.0.0`,
  ],
  'libs/domain/package.json': [{ name: '@lunanexa/domain', dependencies: { zod: '^4.0.0' } }],
  'node_modules/leftover/package.json': [{ name: 'leftover', dependencies: { [GATE_SDK]: '1' } }],
};

function writeRepo(root: string): void {
  const write = (file: string, text: string): void => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  for (const [file, lines] of Object.entries(SOURCES))
    write(file, lines.map(([code]) => code).join('\n') + '\n');
  for (const [file, [manifest]] of Object.entries(MANIFESTS))
    write(file, JSON.stringify(manifest, null, 2) + '\n');
  // Empty package folders, as while others are still writing code.
  mkdirSync(path.join(root, 'libs/persistence/src'), { recursive: true });
  mkdirSync(path.join(root, 'apps/gateway'), { recursive: true });
}

type Key = `${string}:${number} ${RuleId}`;
const keyOf = (violation: Pick<Violation, 'file' | 'line' | 'rule'>): Key =>
  `${violation.file}:${violation.line} ${violation.rule}`;

function expectedViolations(): Key[] {
  const keys: Key[] = [];
  for (const [file, lines] of Object.entries(SOURCES)) {
    lines.forEach(([, rule], index) => {
      if (rule) keys.push(keyOf({ file, line: index + 1, rule }));
    });
  }
  for (const [file, [manifest, offending]] of Object.entries(MANIFESTS)) {
    if (offending === undefined) continue;
    const line =
      JSON.stringify(manifest, null, 2)
        .split('\n')
        .findIndex((text) => text.includes(offending)) + 1;
    keys.push(keyOf({ file, line, rule: 'no-moon-dependency' }));
  }
  return keys.sort();
}

describe('architecture: dependency direction and isolation (DESIGN.md, STYLE.md 1–3)', () => {
  it('the repository breaks no rule', function () {
    this.timeout(60_000);
    const violations = checkArchitecture(findRepoRoot());
    if (violations.length > 0) {
      expect.fail(
        `${violations.length} architecture violation(s):\n${violations.map(formatViolation).join('\n')}`,
      );
    }
  });

  describe('the checker, on a synthetic repository that breaks every rule', () => {
    let root = '';
    let violations: Violation[] = [];
    const at = (file: string, specifier: string): RuleId[] =>
      violations.filter((v) => v.file === file && v.specifier === specifier).map((v) => v.rule);

    before(() => {
      root = mkdtempSync(path.join(tmpdir(), 'lunanexa-architecture-'));
      writeRepo(root);
      violations = checkArchitecture(root);
    });

    after(() => {
      if (root !== '') rmSync(root, { recursive: true, force: true });
    });

    it('reports a Node builtin in workflows/src', () => {
      expect(at('workflows/src/x.ts', 'fs')).to.deep.equal(['workflows-no-node-builtins']);
    });

    it('reports @temporalio/client in workflows/src', () => {
      expect(at('workflows/src/x.ts', '@temporalio/client')).to.deep.equal(['workflows-no-io-packages']);
    });

    it('reports a value import from @lunanexa/activities in workflows/src', () => {
      const rules = violations
        .filter((v) => v.file === 'workflows/src/x.ts' && v.specifier === '@lunanexa/activities')
        .map((v) => `${v.line} ${v.rule}`);
      expect(rules).to.deep.equal(['3 workflows-activities-type-only', '18 workflows-activities-type-only']);
    });

    it('allows `import type` (all three forms) from @lunanexa/activities in workflows/src', () => {
      expect(violations.filter((v) => v.file === 'workflows/src/allowed.ts')).to.deep.equal([]);
    });

    it('reports pg in libs/domain/src', () => {
      expect(at('libs/domain/src/y.ts', 'pg')).to.deep.equal(['pure-libs-no-io-packages']);
    });

    it('reports a sibling-product dependency in package.json files, by name and by npm alias', () => {
      expect(at('package.json', `${GATE_SDK}@^1.0.0`)).to.deep.equal(['no-moon-dependency']);
      expect(at('apps/api/package.json', `${SUITE_CLIENT}@1.0.0`)).to.deep.equal(['no-moon-dependency']);
      expect(at('console/package.json', `sdk@npm:${GATE_SDK}@1.0.0`)).to.deep.equal(['no-moon-dependency']);
    });

    it("reports an apps/api feature importing another feature's file instead of its index.ts", () => {
      const file = 'apps/api/src/rollouts/rollouts.service.ts';
      expect(at(file, '../nodes/nodes.service')).to.deep.equal(['api-feature-internals']);
      expect(at(file, '../deployments')).to.deep.equal([]);
      expect(at(file, '../common/caller')).to.deep.equal([]);
      expect(at('apps/api/src/app.module.ts', './nodes/nodes.module')).to.deep.equal([]);
    });

    it('reports SQL text and .query( on a database handle outside libs/persistence, but not in tests or migrations', () => {
      const sql = violations
        .filter((v) => v.rule === 'sql-outside-persistence')
        .map((v) => `${v.file}:${v.line}`);
      expect(sql).to.include('apps/gateway/src/log.ts:1');
      expect(sql).to.include('apps/gateway/src/log.ts:2');
      // Bench seed code is production-side code too: no exception is left for it.
      expect(sql).to.include('apps/gateway/bench/seed.ts:1');
      expect(
        sql.filter(
          (where) => !where.startsWith('apps/gateway/src/log.ts') && !where.startsWith('apps/gateway/bench/'),
        ),
      ).to.deep.equal([]);
    });

    it('reports exactly the planted violations: none missed, none extra, at the right lines', () => {
      const actual = violations.map(keyOf).sort();
      expect(actual, violations.map(formatViolation).join('\n')).to.deep.equal(expectedViolations());
    });

    it('gives every violation a readable message', () => {
      for (const violation of violations) {
        expect(violation.message, formatViolation(violation)).to.match(/\S{3}/);
        expect(formatViolation(violation)).to.include(`[${violation.rule}]`);
      }
    });
  });

  it('passes an empty repository (folders without code yet)', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'lunanexa-architecture-empty-'));
    try {
      for (const folder of ['libs/contracts/src', 'workflows/src', 'activities', 'apps/api', 'console']) {
        mkdirSync(path.join(root, folder), { recursive: true });
      }
      expect(checkArchitecture(root)).to.deep.equal([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  describe('collectImports', () => {
    const source = [
      "import type { A } from 'a';", // 1
      "import { type B, type C } from 'b';", // 2
      "import { type D, E } from 'd';", // 3
      "import F, { type G } from 'f';", // 4
      "import 'side-effect';", // 5
      "export * from 'star';", // 6
      "export type * from 'type-star';", // 7
      "export { type H } from 'h';", // 8
      "import I = require('i');", // 9
      "const j = require('j');", // 10
      "const k = import('k');", // 11
      "type L = typeof import('l');", // 12
      "declare module 'm' { interface N { n: 1 } }", // 13
      'const o = require(dynamicName);', // 14
      "export { P } from 'p';", // 15
    ].join('\n');

    it('finds every specifier with its line, and tells type-only imports from value imports', () => {
      const { imports, nonLiteral } = collectImports('x.ts', source);
      expect(imports.map((i) => `${i.line} ${i.specifier} ${i.kind} ${i.form}`)).to.deep.equal([
        '1 a type import',
        '2 b type import',
        '3 d value import',
        '4 f value import',
        '5 side-effect value import',
        '6 star value export',
        '7 type-star type export',
        '8 h type export',
        '9 i value import-equals',
        '10 j value require',
        '11 k value dynamic-import',
        '12 l type import-type',
        '13 m type module-augmentation',
        '15 p value export',
      ]);
      expect(nonLiteral).to.deep.equal([{ line: 14, form: 'require', expression: 'require(dynamicName)' }]);
    });
  });
});
