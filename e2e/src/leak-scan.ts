import { FORBIDDEN_PRODUCT_PATTERN_SOURCE } from './leak-terms';

export { FORBIDDEN_PRODUCT_NAMES } from './leak-terms';

/**
 * Leak scanner: finds text that must not leave (or enter) LunaNexa —
 * the sibling product family's names (DESIGN.md invariant 1), secret-looking
 * strings and absolute paths of a particular machine. Used on the repository
 * (test/forbidden-terms.spec.ts) and by e2e scenarios on API responses,
 * assignments, runtime environments and images.
 */

export type LeakKind =
  /** A forbidden product name (see leak-terms.ts). */
  | 'product-name'
  /** A PEM private key block (header followed by a key body). */
  | 'private-key'
  /** An AWS access key id (`AKIA…` / `ASIA…`). */
  | 'aws-access-key'
  /** A GitHub token (`ghp_…`, `gho_…`, `github_pat_…`). */
  | 'github-token'
  /** A JSON Web Token (`eyJ…` header, payload, signature). */
  | 'jwt'
  /** `password=` / `secret=` / `token=` / `api_key=` … followed by a long value. */
  | 'credential-assignment'
  /** A long hex or base64 literal assigned to a secret-ish name. */
  | 'secret-literal'
  /** An absolute path of a particular machine (`/home/<name>`, `/Users/<name>`, `/root`, `/work`, `C:\Users\`). */
  | 'machine-path';

export const LEAK_KINDS: readonly LeakKind[] = [
  'product-name',
  'private-key',
  'aws-access-key',
  'github-token',
  'jwt',
  'credential-assignment',
  'secret-literal',
  'machine-path',
];

export interface LeakFinding {
  readonly kind: LeakKind;
  /** What was scanned: a file path, `GET /v1/models`, `assignment n-1/g7`… */
  readonly source: string;
  /** 1-based line of the finding in the scanned text. */
  readonly line: number;
  /** 1-based column of the finding in that line. */
  readonly column: number;
  /** The matched text, with any secret part redacted: safe to print. */
  readonly excerpt: string;
  readonly message: string;
}

/**
 * Suppresses findings that are intended. Every entry says why; keep entries
 * narrow (a source and a match), never a whole kind everywhere.
 */
export interface LeakAllowEntry {
  readonly kind: LeakKind;
  /** The sources it covers: exactly this source, or sources the RegExp matches. Omitted: every source. */
  readonly source?: string | RegExp;
  /** The matched (unredacted) text it covers: exactly this, or text the RegExp matches. Omitted: any match. */
  readonly match?: string | RegExp;
  readonly reason: string;
}

export interface LeakScanOptions {
  readonly allow?: readonly LeakAllowEntry[];
  /** Run only these detectors (e.g. lockfiles: only `product-name`). Default: all. */
  readonly kinds?: readonly LeakKind[];
  /** Called for every finding an allow entry suppressed (lets callers report stale entries). */
  readonly onAllowed?: (entry: LeakAllowEntry, finding: LeakFinding) => void;
}

interface Detector {
  readonly kind: LeakKind;
  /** Source and flags of the pattern; a fresh RegExp (with `g` and `d`) is built per scan. */
  readonly source: string;
  readonly flags: string;
  /** Findings of secret detectors are redacted and de-duplicated against each other. */
  readonly secret: boolean;
  readonly message: string;
  /** Where the finding points and what its excerpt shows; default: the whole match. */
  readonly describe?: (match: RegExpExecArray) => { index: number; excerpt: string } | undefined;
}

/** Names that hold secrets (case-insensitive), as a RegExp source. */
const SECRET_WORD = String.raw`(?:pass(?:word|wd|phrase)|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|signing[_-]?key|session[_-]?key|hmac[_-]?key|encryption[_-]?key|credentials?)`;

/** `sha256:<hex>` and friends: a digest labelled as such is not a secret. */
const LABELLED_DIGEST = /^sha(?:1|224|256|384|512):[0-9a-f]+$/i;

/** A name that says its value is a digest of something, not the thing. */
const DIGEST_NAME = /hash|digest|fingerprint|checksum|sha\d*/i;

const DETECTORS: readonly Detector[] = [
  {
    kind: 'private-key',
    source: String.raw`-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----(?=[\s\S]{0,300}?[A-Za-z0-9+/]{40})`,
    flags: '',
    secret: true,
    message: 'PEM private key block',
    describe: (m) => ({
      index: m.index,
      excerpt: `-----BEGIN ${m[1] ?? ''}PRIVATE KEY----- (body redacted)`,
    }),
  },
  {
    kind: 'aws-access-key',
    source: String.raw`(?<![A-Za-z0-9+/])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9+/])`,
    flags: '',
    secret: true,
    message: 'AWS access key id',
    // AWS documentation's sample keys end in EXAMPLE.
    describe: (m) => (m[0].endsWith('EXAMPLE') ? undefined : { index: m.index, excerpt: redact(m[0]) }),
  },
  {
    kind: 'github-token',
    source: String.raw`(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{30,})(?![A-Za-z0-9_])`,
    flags: '',
    secret: true,
    message: 'GitHub token',
  },
  {
    kind: 'jwt',
    source: String.raw`(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*(?![A-Za-z0-9_-])`,
    flags: '',
    secret: true,
    message: 'JSON Web Token',
  },
  {
    kind: 'secret-literal',
    // name, optional closing quote, `:` or `=`, optional opening quote, ≥32 hex/base64 characters.
    source: String.raw`(?<![A-Za-z0-9_$-])([A-Za-z0-9_$-]*?${SECRET_WORD}(?:[_-]?(?:value|b64|base64|hex|raw|key))?)["'\x60]?\s*[:=]\s*["'\x60]?([A-Za-z0-9+/_-]{32,}={0,2})(?![A-Za-z0-9+/_=-])`,
    flags: 'i',
    secret: true,
    message: 'long hex/base64 literal assigned to a secret-ish name',
    describe: (m) => {
      const name = m[1] ?? '';
      const value = m[2] ?? '';
      if (DIGEST_NAME.test(name) || !looksRandom(value)) return undefined;
      return { index: m.indices?.[2]?.[0] ?? m.index, excerpt: `${name}: ${redact(value)}` };
    },
  },
  {
    kind: 'credential-assignment',
    // `password=…`, `DB_PASSWORD=…`, `?access_token=…`, `--token=…` with a value of ≥12 characters.
    source: String.raw`(?<![A-Za-z0-9_.$-])([A-Za-z0-9_.-]*?(?:pass(?:word|wd|phrase)|secret|token|api[_-]?key|access[_-]?key))=(?!=)([^\s"'\x60&;,<>(){}\[\]|\\]{12,})`,
    flags: 'i',
    secret: true,
    message: 'credential assigned in key=value form',
    describe: (m) => {
      const name = m[1] ?? '';
      const value = m[2] ?? '';
      const after = m.input.charAt(m.index + m[0].length);
      if (after === '(' || isPlaceholder(value)) return undefined;
      return { index: m.indices?.[2]?.[0] ?? m.index, excerpt: `${name}=${redact(value)}` };
    },
  },
  {
    kind: 'machine-path',
    source: String.raw`(?<![A-Za-z0-9_.~$})\]-])(?:/home/[A-Za-z0-9._-]+|/Users/[A-Za-z0-9._-]+|/root|/work)(?=[/"'\x60\s,;:)\]}]|$)`,
    flags: 'm',
    secret: false,
    message: 'absolute path of a particular machine',
  },
  {
    kind: 'machine-path',
    source: String.raw`(?<![A-Za-z0-9_])[A-Za-z]:(?:\\{1,2}|/)Users(?:\\{1,2}|/)`,
    flags: 'i',
    secret: false,
    message: 'absolute Windows user-profile path',
  },
  {
    kind: 'product-name',
    source: FORBIDDEN_PRODUCT_PATTERN_SOURCE,
    flags: 'i',
    secret: false,
    message: 'forbidden product name (LunaNexa never names or depends on the sibling product family)',
  },
];

/**
 * Scans `text` (from `source`, used only to label findings and to match allow
 * entries) and returns every finding, in text order.
 */
export function scanForLeaks(text: string, source: string, options: LeakScanOptions = {}): LeakFinding[] {
  const allow = options.allow ?? [];
  for (const entry of allow) {
    if (entry.reason.trim() === '') {
      throw new Error(`leak allow entry for ${entry.kind} has no reason`);
    }
  }
  const kinds = options.kinds ? new Set(options.kinds) : undefined;
  const lines = lineIndex(text);
  const secretSpans = new DisjointSpans();
  const findings: LeakFinding[] = [];

  for (const detector of DETECTORS) {
    if (kinds && !kinds.has(detector.kind)) continue;
    const pattern = new RegExp(detector.source, `${detector.flags}gd`);
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      const described = detector.describe
        ? detector.describe(match)
        : { index: start, excerpt: detector.secret ? redact(match[0]) : match[0] };
      if (!described) continue;
      // One finding per secret: the first (most specific) detector to claim a span keeps it.
      if (detector.secret && !secretSpans.claim(start, end)) continue;
      const { line, column } = lines.position(described.index);
      const finding: LeakFinding = {
        kind: detector.kind,
        source,
        line,
        column,
        excerpt: described.excerpt,
        message: detector.message,
      };
      const allowedBy = allow.find((entry) => allows(entry, finding, match[0]));
      if (allowedBy) {
        options.onAllowed?.(allowedBy, finding);
        continue;
      }
      findings.push(finding);
    }
  }
  return findings.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** One line per finding: `source:line:column  kind  excerpt  (message)`. */
export function formatLeakFinding(finding: LeakFinding): string {
  return `${finding.source}:${finding.line}:${finding.column}  ${finding.kind}  ${finding.excerpt}  (${finding.message})`;
}

function allows(entry: LeakAllowEntry, finding: LeakFinding, matched: string): boolean {
  return (
    entry.kind === finding.kind &&
    (entry.source === undefined || matches(entry.source, finding.source)) &&
    (entry.match === undefined || matches(entry.match, matched))
  );
}

function matches(expected: string | RegExp, actual: string): boolean {
  if (typeof expected === 'string') return expected === actual;
  expected.lastIndex = 0;
  return expected.test(actual);
}

/** First four characters and the length: enough to find it, not enough to use it. */
function redact(value: string): string {
  return `${value.slice(0, 4)}…(${value.length} chars)`;
}

/** True for values that look like key material rather than words, ids or padding. */
function looksRandom(value: string): boolean {
  const body = value.replace(/=+$/, '');
  if (/^[0-9a-f]+$/i.test(body)) return entropy(body) >= 3;
  return /[a-z]/.test(body) && /[A-Z]/.test(body) && /[0-9]/.test(body) && entropy(body) >= 4;
}

/** True for values that stand for a credential instead of being one. */
function isPlaceholder(value: string): boolean {
  return (
    /^[$%*<{=]/.test(value) ||
    LABELLED_DIGEST.test(value) ||
    /^[A-Z][A-Z0-9_]*$/.test(value) || // REPLACE_ME, an environment variable name
    /^[a-z]+(?:[A-Z][a-z0-9]*)+$/.test(value) || // a camelCase identifier in code
    /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value) || // config.db.password
    /example|placeholder|redacted|changeme|your[-_]/i.test(value) ||
    /^(.)\1+$/.test(value) // xxxxxxxx, ********
  );
}

/** Shannon entropy in bits per character. */
function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Non-overlapping [start, end) spans kept sorted, so claiming one is a binary search. */
class DisjointSpans {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  /** Records the span and returns true, unless it overlaps one already recorded. */
  claim(start: number, end: number): boolean {
    // Index of the first recorded span starting at or after `end`; the one before it is the only candidate.
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.starts.at(mid) ?? 0) < end) low = mid + 1;
      else high = mid;
    }
    if (low > 0 && (this.ends.at(low - 1) ?? 0) > start) return false;
    this.starts.splice(low, 0, start);
    this.ends.splice(low, 0, end);
    return true;
  }
}

function lineIndex(text: string): { position(index: number): { line: number; column: number } } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return {
    position(index) {
      let low = 0;
      let high = starts.length - 1;
      while (low < high) {
        const mid = (low + high + 1) >> 1;
        if ((starts.at(mid) ?? 0) <= index) low = mid;
        else high = mid - 1;
      }
      return { line: low + 1, column: index - (starts.at(low) ?? 0) + 1 };
    },
  };
}
