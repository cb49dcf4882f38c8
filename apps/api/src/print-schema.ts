import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot } from '@lunanexa/observability';
import { buildSchemaSdl, COMMITTED_SCHEMA_PATH } from './schema';

buildSchemaSdl()
  .then((sdl) => {
    writeFileSync(join(findRepoRoot(), COMMITTED_SCHEMA_PATH), sdl);
    process.stdout.write(`wrote ${COMMITTED_SCHEMA_PATH}\n`);
  })
  .catch((error: unknown) => {
    process.stderr.write(`schema:print failed: ${String(error)}\n`);
    process.exit(1);
  });
