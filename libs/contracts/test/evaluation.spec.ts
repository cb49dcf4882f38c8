import { expect } from 'chai';
import type { z } from 'zod';
import {
  BenchmarkProfileDefinitionSchema,
  EvaluationSuiteDefinitionSchema,
  GraderSchema,
  REGEX_FLAGS_PATTERN,
} from '../src/evaluation';
import { WORKFLOW_TYPES } from '../src/temporal';
import { fixture } from './helpers';

type Json = Record<string, unknown>;

function rejectedAt(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  expect(result.success, 'expected the value to be rejected').to.equal(false);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('evaluation contracts', () => {
  const suite = fixture('evaluation-suite.json') as Json;
  const profile = fixture('benchmark-profile.json') as Json;
  const cases = suite['cases'] as Json[];
  const firstCase = cases[0];

  it('names the workflow type', () => {
    expect(WORKFLOW_TYPES.evaluate).to.equal('evaluateWorkflow');
  });

  it('accepts each grader kind and refuses unknown kinds and foreign fields', () => {
    for (const grader of [
      { kind: 'exact', expected: '' },
      { kind: 'contains', substring: 'x' },
      { kind: 'regex', pattern: 'a+', flags: 'is' },
      { kind: 'json-schema', schema: { type: 'object' } },
    ]) {
      expect(GraderSchema.safeParse(grader).success, JSON.stringify(grader)).to.equal(true);
    }
    rejectedAt(GraderSchema, { kind: 'similarity', expected: 'x' });
    rejectedAt(GraderSchema, { kind: 'exact', expected: 'x', pattern: 'y' });
    rejectedAt(GraderSchema, { kind: 'contains', substring: '' });
    rejectedAt(GraderSchema, { kind: 'json-schema', schema: [] });
  });

  it('refuses regex patterns that do not compile, overlong ones, and stateful or repeated flags', () => {
    expect(rejectedAt(GraderSchema, { kind: 'regex', pattern: '(unclosed' })).to.deep.equal(['pattern']);
    rejectedAt(GraderSchema, { kind: 'regex', pattern: 'a'.repeat(1025) });
    for (const flags of ['g', 'y', 'ii', 'x', 'imsuu']) {
      expect(REGEX_FLAGS_PATTERN.test(flags), flags).to.equal(false);
      rejectedAt(GraderSchema, { kind: 'regex', pattern: 'a', flags });
    }
    for (const flags of ['', 'i', 'ms', 'imsu'])
      expect(REGEX_FLAGS_PATTERN.test(flags), flags).to.equal(true);
  });

  it('needs exactly one of prompt and messages in a case', () => {
    const both = { ...suite, cases: [{ ...firstCase, messages: [{ role: 'user', content: 'x' }] }] };
    expect(rejectedAt(EvaluationSuiteDefinitionSchema, both)).to.include('cases.0.prompt');
    const { prompt: _prompt, ...neither } = firstCase;
    expect(rejectedAt(EvaluationSuiteDefinitionSchema, { ...suite, cases: [neither] })).to.include(
      'cases.0.prompt',
    );
  });

  it('bounds a suite: threshold 0-1, 1-500 unique cases, max tokens, concurrency', () => {
    rejectedAt(EvaluationSuiteDefinitionSchema, { ...suite, passThreshold: 1.01 });
    rejectedAt(EvaluationSuiteDefinitionSchema, { ...suite, passThreshold: -0.1 });
    rejectedAt(EvaluationSuiteDefinitionSchema, { ...suite, cases: [] });
    rejectedAt(EvaluationSuiteDefinitionSchema, { ...suite, cases: [firstCase, firstCase] });
    rejectedAt(EvaluationSuiteDefinitionSchema, {
      ...suite,
      cases: Array.from({ length: 501 }, (_, i) => ({ ...firstCase, id: `c${i}` })),
    });
    rejectedAt(EvaluationSuiteDefinitionSchema, { ...suite, cases: [{ ...firstCase, maxTokens: 0 }] });
    rejectedAt(EvaluationSuiteDefinitionSchema, { ...suite, concurrency: 33 });
    rejectedAt(EvaluationSuiteDefinitionSchema, { ...suite, name: 'Smoke Test' });
    rejectedAt(EvaluationSuiteDefinitionSchema, { ...suite, extra: true });
  });

  it('bounds a profile and needs a duration, a request count or both', () => {
    rejectedAt(BenchmarkProfileDefinitionSchema, { ...profile, concurrency: 0 });
    rejectedAt(BenchmarkProfileDefinitionSchema, { ...profile, concurrency: 257 });
    rejectedAt(BenchmarkProfileDefinitionSchema, { ...profile, inputTokens: 0 });
    rejectedAt(BenchmarkProfileDefinitionSchema, { ...profile, outputTokens: 8193 });
    rejectedAt(BenchmarkProfileDefinitionSchema, { ...profile, durationSeconds: 3601 });
    rejectedAt(BenchmarkProfileDefinitionSchema, { ...profile, slo: { maxErrorRate: 1.5 } });
    const { durationSeconds: _d, requestCount: _r, ...unbounded } = profile;
    expect(rejectedAt(BenchmarkProfileDefinitionSchema, unbounded)).to.include('durationSeconds');
    expect(BenchmarkProfileDefinitionSchema.safeParse({ ...unbounded, requestCount: 10 }).success).to.equal(
      true,
    );
    expect(
      BenchmarkProfileDefinitionSchema.safeParse({ ...unbounded, durationSeconds: 10 }).success,
    ).to.equal(true);
  });
});
