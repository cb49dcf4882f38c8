import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CONTRACTS_VERSION } from '@lunanexa/contracts';
import { CONTRACT_VERSION, SDK_VERSION } from '@lunanexa/sdk';
import { findRepoRoot } from './support/repo';

const sdkRoot = path.join(findRepoRoot(), 'libs', 'sdk');

interface SdkManifest {
  readonly version: string;
  readonly private?: boolean;
  readonly files: readonly string[];
  readonly exports: Record<string, string | Record<string, string>>;
  readonly lunanexa: { readonly contractVersion: string };
}

const manifest = JSON.parse(readFileSync(path.join(sdkRoot, 'package.json'), 'utf8')) as SdkManifest;

describe('@lunanexa/sdk as a package an application installs', () => {
  it('is publishable and says its version and contract generation in one voice', () => {
    expect(manifest.private, 'a private package cannot be installed outside the workspace').to.not.equal(
      true,
    );
    expect(SDK_VERSION).to.equal(manifest.version);
    expect(CONTRACT_VERSION).to.equal(CONTRACTS_VERSION);
    expect(manifest.lunanexa.contractVersion).to.equal(CONTRACTS_VERSION);
  });

  it('has a CHANGELOG entry for its version naming the contract generation, and ships it', () => {
    const changelog = readFileSync(path.join(sdkRoot, 'CHANGELOG.md'), 'utf8');
    expect(changelog).to.include(`## ${manifest.version} (contract ${CONTRACTS_VERSION})`);
    expect(manifest.files).to.include.members(['CHANGELOG.md', 'README.md', 'dist/src']);
  });

  it('exports only files the build makes, with types for the entry point', () => {
    const root = manifest.exports['.'] as Record<string, string>;
    expect(root.types).to.equal('./dist/src/index.d.ts');
    for (const target of [root.types, root.default, manifest.exports['./openapi.json'] as string])
      expect(existsSync(path.join(sdkRoot, target)), target).to.equal(true);
  });
});
