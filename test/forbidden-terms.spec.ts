import { expect } from 'chai';
import { openSync, readSync, closeSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import {
  LEAK_KINDS,
  formatLeakFinding,
  scanForLeaks,
  type LeakAllowEntry,
  type LeakFinding,
  type LeakKind,
} from '@lunanexa/e2e/dist/src/leak-scan';
import { REPO_LEAK_ALLOWLIST } from './support/leak-allowlist';
import {
  CLEAN,
  HOME_PATH_LINE,
  LEAKING,
  POSITIONED,
  REDACTION_SECRET,
  ROOT_PATH,
  ROOT_PATH_LINE,
} from './support/leak-samples';
import { findRepoRoot, gitListFiles } from './support/repo';

/** The scanner's own sources spell what they look for. */
const SCANNER_FILES = new Set(['e2e/src/leak-scan.ts', 'e2e/src/leak-terms.ts']);

/** Lockfiles hold integrity hashes and registry URLs: scanned for product names only. */
const LOCKFILES = new Set(['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml']);

/** Git's own heuristic: a NUL byte in the first 8000 bytes means binary. */
function isBinary(file: string): boolean {
  const buffer = Buffer.alloc(8000);
  const fd = openSync(file, 'r');
  try {
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, length).includes(0);
  } finally {
    closeSync(fd);
  }
}

function report(findings: readonly LeakFinding[]): string {
  return findings.map(formatLeakFinding).join('\n');
}

describe('forbidden terms, secrets and machine paths', () => {
  describe('repository scan (git-tracked and untracked-but-not-ignored files)', () => {
    const repoRoot = findRepoRoot();
    const used = new Set<LeakAllowEntry>();
    let scanned = 0;
    let findings: LeakFinding[] = [];

    before(function () {
      this.timeout(120_000);
      const options = { allow: REPO_LEAK_ALLOWLIST, onAllowed: (entry: LeakAllowEntry) => used.add(entry) };
      for (const file of gitListFiles(repoRoot)) {
        // File names are output too (paths in images, archives, stack traces).
        findings.push(...scanForLeaks(file, `${file} (file name)`, { ...options, kinds: ['product-name'] }));
        if (SCANNER_FILES.has(file)) continue;
        const absolute = path.join(repoRoot, file);
        let isFile = false;
        try {
          isFile = statSync(absolute).isFile();
        } catch {
          continue; // tracked but deleted in the work tree
        }
        if (!isFile || isBinary(absolute)) continue;
        const kinds: readonly LeakKind[] | undefined = LOCKFILES.has(path.posix.basename(file))
          ? ['product-name']
          : undefined;
        findings.push(...scanForLeaks(readFileSync(absolute, 'utf8'), file, { ...options, kinds }));
        scanned += 1;
      }
      findings = findings.sort((a, b) => a.source.localeCompare(b.source) || a.line - b.line);
    });

    it('scans files at all', () => {
      // The repository has at least its root manifests; an empty list means git listed nothing.
      expect(scanned, 'files scanned').to.be.greaterThan(0);
    });

    it('finds no product names, secrets or machine paths', () => {
      if (findings.length > 0) {
        expect.fail(
          `${findings.length} finding(s); fix them or, if intended, add a narrow entry with a reason to ` +
            `test/support/leak-allowlist.ts:\n${report(findings)}`,
        );
      }
    });

    it('has no stale allowlist entries', () => {
      const stale = REPO_LEAK_ALLOWLIST.filter((entry) => !used.has(entry));
      expect(
        stale.map((entry) => `${entry.kind} ${String(entry.source)} ${String(entry.match)}: ${entry.reason}`),
        'allowlist entries that no longer suppress anything (remove them)',
      ).to.deep.equal([]);
    });
  });

  describe('scanForLeaks detectors', () => {
    LEAKING.forEach((sample, index) => {
      it(`reports ${sample.kind} (leaking sample #${index})`, () => {
        const kinds = scanForLeaks(sample.text, 'sample').map((finding) => finding.kind);
        expect(kinds, report(scanForLeaks(sample.text, 'sample'))).to.include(sample.kind);
      });
    });

    it('has a firing sample for every kind', () => {
      expect([...new Set(LEAKING.map((sample) => sample.kind))].sort()).to.deep.equal([...LEAK_KINDS].sort());
    });

    for (const sample of CLEAN) {
      it(`reports nothing for: ${sample.why}`, () => {
        const findings = scanForLeaks(sample.text, 'sample');
        expect(findings, report(findings)).to.deep.equal([]);
      });
    }

    it('reports 1-based line and column of each finding, in text order', () => {
      const findings = scanForLeaks(POSITIONED.text, 'positioned.txt');
      expect(findings.map(({ kind, line, column }) => ({ kind, line, column }))).to.deep.equal(
        POSITIONED.expected,
      );
      expect(findings.every((finding) => finding.source === 'positioned.txt')).to.equal(true);
    });

    it('redacts secrets in excerpts', () => {
      const [finding, ...rest] = scanForLeaks(`GH_TOKEN=${REDACTION_SECRET}`, 'env');
      expect(rest).to.deep.equal([]);
      expect(finding?.kind).to.equal('github-token');
      expect(finding?.excerpt).not.to.include(REDACTION_SECRET.slice(4, 12));
      expect(finding?.excerpt).to.include(`(${REDACTION_SECRET.length} chars)`);
    });

    it('reports each secret once even when several detectors match it', () => {
      const findings = scanForLeaks(`token=${REDACTION_SECRET}`, 'env');
      expect(findings.map((finding) => finding.kind)).to.deep.equal(['github-token']);
    });

    it('runs only the requested detectors', () => {
      const text = `${ROOT_PATH_LINE}\nGH_TOKEN=${REDACTION_SECRET}`;
      expect(scanForLeaks(text, 'x', { kinds: ['product-name'] })).to.deep.equal([]);
      expect(scanForLeaks(text, 'x', { kinds: ['machine-path'] }).map((f) => f.kind)).to.deep.equal([
        'machine-path',
      ]);
    });

    describe('allowlist', () => {
      const entry: LeakAllowEntry = {
        kind: 'machine-path',
        source: /^infra\/systemd\/.*\.service$/,
        match: ROOT_PATH,
        reason: 'the agent unit runs from the service user home on the node',
      };

      it('suppresses a finding only in the sources and text it names, and reports the use', () => {
        const uses: LeakFinding[] = [];
        const options = {
          allow: [entry],
          onAllowed: (_: LeakAllowEntry, finding: LeakFinding) => uses.push(finding),
        };
        expect(scanForLeaks(ROOT_PATH_LINE, 'infra/systemd/agent.service', options)).to.deep.equal([]);
        expect(uses.map((finding) => finding.kind)).to.deep.equal(['machine-path']);
        expect(scanForLeaks(ROOT_PATH_LINE, 'apps/agent/src/main.ts', options)).to.have.length(1);
        // The entry names the root home only; another home directory in the same file is still reported.
        expect(scanForLeaks(HOME_PATH_LINE, 'infra/systemd/agent.service', options)).to.have.length(1);
      });

      it('does not suppress other kinds in the same source', () => {
        const text = `${ROOT_PATH_LINE}\nGH_TOKEN=${REDACTION_SECRET}`;
        const findings = scanForLeaks(text, 'infra/systemd/agent.service', { allow: [entry] });
        expect(findings.map((finding) => finding.kind)).to.deep.equal(['github-token']);
      });

      it('rejects an entry without a reason', () => {
        expect(() => scanForLeaks('x', 'x', { allow: [{ ...entry, reason: ' ' }] })).to.throw(/no reason/);
      });
    });
  });
});
