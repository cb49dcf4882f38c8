// Registers the LunaNexa namespace and search attributes in any Temporal
// cluster (production, staging): idempotent, creates only what is missing.
//
//   node temporal/register.mjs --address temporal-frontend.internal:7233 \
//     [--namespace lunanexa] [--retention 720h] [-- <extra temporal CLI flags, e.g. --tls --tls-ca-path ca.pem>]
//
// TLS and API keys can also come from the CLI's own environment variables
// (TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY, TEMPORAL_TLS_CA, TEMPORAL_API_KEY, ...).
// The CLI is found like everywhere else: LUNANEXA_TEMPORAL_CLI, .tools/bin, PATH.

import { parseArgs } from 'node:util';
import { ensureTemporalCli } from './install.mjs';
import { ensureNamespaceAndSearchAttributes, readTemporalContract } from './start-dev.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    address: { type: 'string', default: process.env.TEMPORAL_ADDRESS },
    namespace: { type: 'string' },
    retention: { type: 'string' },
  },
});

if (!values.address) {
  console.error(
    'usage: node temporal/register.mjs --address host:7233 [--namespace lunanexa] [--retention 720h] [-- extra CLI flags]',
  );
  process.exit(2);
}

try {
  const contract = readTemporalContract();
  const namespace = values.namespace ?? contract.namespace;
  const result = await ensureNamespaceAndSearchAttributes({
    cliPath: await ensureTemporalCli(),
    address: values.address,
    namespace,
    searchAttributes: contract.searchAttributes,
    retention: values.retention,
    extraArgs: positionals,
  });
  console.log(
    `namespace ${namespace} at ${values.address}: ${result.namespaceCreated ? 'created' : 'already present'}`,
  );
  console.log(
    `search attributes (Keyword): ${Object.keys(contract.searchAttributes).join(', ')}; ` +
      `created now: ${result.createdSearchAttributes.join(', ') || 'none'}`,
  );
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
