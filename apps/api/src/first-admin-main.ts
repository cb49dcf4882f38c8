import 'reflect-metadata';
import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@lunanexa/contracts';
import { configFields, loadConfig, runMain } from '@lunanexa/observability';
import { createDataSource } from '@lunanexa/persistence';
import { ensureFirstAdmin, ensureLocalAdminToken, ensureLocalOperatorToken } from './auth/first-admin';

/**
 * `node apps/api/dist/src/first-admin-main.js` — makes sure an enabled admin
 * exists (run after migrations, before operators need to log in; the start
 * command calls it). Idempotent: with an admin present it changes nothing.
 *
 * - DATABASE_URL (required)
 * - LUNANEXA_ADMIN_USERNAME (default `admin`)
 * - LUNANEXA_ADMIN_PASSWORD (optional, 12-1024 characters). Without it a
 *   random password is generated and printed ONCE on stdout — to this
 *   process's stdout only, never to a logger. Whoever runs this must show
 *   that line to the operator rather than write it to a log file.
 */
const FirstAdminConfigSchema = z.object({
  DATABASE_URL: configFields.postgresUrl(),
  LUNANEXA_ADMIN_USERNAME: z.string().min(1).default('admin'),
  LUNANEXA_ADMIN_PASSWORD: z
    .string()
    .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`)
    .optional(),
  /** Where to keep the local operator token for the launcher and CLI; unset = no token. */
  LUNANEXA_LOCAL_TOKEN_FILE: z.string().min(1).optional(),
  /** Where to keep the launcher's admin API token (it enrolls the simulated agents). */
  LUNANEXA_LOCAL_ADMIN_TOKEN_FILE: z.string().min(1).optional(),
});

runMain('lunanexa-first-admin', async () => {
  const config = loadConfig('lunanexa-first-admin', FirstAdminConfigSchema);
  const ds = createDataSource({
    url: config.DATABASE_URL,
    applicationName: 'lunanexa-first-admin',
    poolSize: 2,
  });
  await ds.initialize();
  try {
    const outcome = await ensureFirstAdmin(ds, {
      username: config.LUNANEXA_ADMIN_USERNAME,
      ...(config.LUNANEXA_ADMIN_PASSWORD === undefined ? {} : { password: config.LUNANEXA_ADMIN_PASSWORD }),
    });
    if (!outcome.created) {
      process.stdout.write(
        `first admin: an enabled admin exists (${outcome.existingAdmin}); nothing to do\n`,
      );
    } else if (outcome.generatedPassword === null) {
      process.stdout.write(
        `first admin: created admin "${outcome.username}" with the password from LUNANEXA_ADMIN_PASSWORD\n`,
      );
    } else {
      process.stdout.write(
        `first admin: created admin "${outcome.username}". Its generated password is shown this once; store it now:\n` +
          `  ${outcome.generatedPassword}\n`,
      );
    }
    if (config.LUNANEXA_LOCAL_TOKEN_FILE) {
      const token = await ensureLocalOperatorToken(ds, config.LUNANEXA_LOCAL_TOKEN_FILE);
      process.stdout.write(
        token.created
          ? `local operator token: created ${token.prefix}… in ${config.LUNANEXA_LOCAL_TOKEN_FILE} (0600)\n`
          : `local operator token: ${token.prefix}… in ${config.LUNANEXA_LOCAL_TOKEN_FILE} is valid\n`,
      );
    }
    if (config.LUNANEXA_LOCAL_ADMIN_TOKEN_FILE) {
      const token = await ensureLocalAdminToken(ds, config.LUNANEXA_LOCAL_ADMIN_TOKEN_FILE);
      process.stdout.write(
        token.created
          ? `local admin token: created ${token.prefix}… in ${config.LUNANEXA_LOCAL_ADMIN_TOKEN_FILE} (0600)\n`
          : `local admin token: ${token.prefix}… in ${config.LUNANEXA_LOCAL_ADMIN_TOKEN_FILE} is valid\n`,
      );
    }
  } finally {
    await ds.destroy();
  }
});
