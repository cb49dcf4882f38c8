import type { LeakAllowEntry } from '@lunanexa/e2e/dist/src/leak-scan';

/**
 * Findings of the repository leak scan (test/forbidden-terms.spec.ts) that are
 * intended. Each entry names its file and the exact text, and says why.
 * Entries that no longer suppress anything fail the scan, so this list only
 * shrinks with the code.
 */
export const REPO_LEAK_ALLOWLIST: readonly LeakAllowEntry[] = [
  {
    kind: 'private-key',
    source: /^libs\/agent-protocol\/test\/keys\/TEST-ONLY-(?:controller|node)\.ed25519\.pem$/,
    reason:
      'Published TEST-ONLY Ed25519 keys that sign the agent-protocol golden fixtures; ' +
      'the agent refuses to trust them (PUBLISHED_TEST_KEY_FINGERPRINTS).',
  },
];
