import { describe, expect, it } from '@jest/globals';

import { aFinding, sha, T0 } from '../testing/finding.factory.js';
import { anchorSchema, findingSchema, severityRank } from './finding.model.js';

describe('findingSchema', () => {
  it('accepts a well-formed finding', () => {
    const finding = aFinding();
    expect(findingSchema.parse(finding)).toEqual(finding);
  });

  it('requires the f_ + 10 hex id, a v1 fingerprint and full commit shas', () => {
    const issues = (value: unknown): string[] =>
      findingSchema.safeParse(value).error?.issues.map((i) => i.path.join('.')) ?? [];
    expect(issues({ ...aFinding(), id: 'f_123' })).toEqual(['id']);
    expect(issues({ ...aFinding(), fingerprint: 'v2:abc' })).toEqual(['fingerprint']);
    expect(issues({ ...aFinding(), firstSeenSha: 'abc1234' })).toEqual(['firstSeenSha']);
  });

  it('refuses a title over 120 characters and an empty one', () => {
    expect(findingSchema.safeParse(aFinding({ title: 'x'.repeat(120) })).success).toBe(true);
    expect(findingSchema.safeParse(aFinding({ title: 'x'.repeat(121) })).success).toBe(false);
    expect(findingSchema.safeParse(aFinding({ title: '' })).success).toBe(false);
  });

  it('keeps status and resolution consistent: a commit resolves, a person dismisses', () => {
    const fixed = {
      kind: 'fixed_by_commit',
      sha: sha('b'),
      note: 'Bounds now checked.',
      by: { kind: 'caravel' },
      at: T0,
    } as const;
    const dismissed = {
      kind: 'dismissed',
      sha: sha('b'),
      note: 'Intended.',
      by: { kind: 'person', login: 'ada' },
      at: T0,
    } as const;
    expect(
      findingSchema.safeParse(aFinding({ status: 'resolved', resolution: fixed })).success,
    ).toBe(true);
    expect(
      findingSchema.safeParse(aFinding({ status: 'dismissed', resolution: dismissed })).success,
    ).toBe(true);
    expect(
      findingSchema.safeParse(aFinding({ status: 'resolved', resolution: dismissed })).success,
    ).toBe(false);
    expect(findingSchema.safeParse(aFinding({ status: 'open', resolution: fixed })).success).toBe(
      false,
    );
    expect(
      findingSchema.safeParse(aFinding({ status: 'dismissed', resolution: null })).success,
    ).toBe(false);
  });
});

describe('anchorSchema', () => {
  it('takes both lines or neither, in order', () => {
    const anchor = { file: 'a.ts', side: 'RIGHT' } as const;
    expect(anchorSchema.safeParse({ ...anchor, startLine: 3, endLine: 3 }).success).toBe(true);
    expect(anchorSchema.safeParse({ ...anchor, startLine: null, endLine: null }).success).toBe(
      true,
    );
    expect(anchorSchema.safeParse({ ...anchor, startLine: 3, endLine: null }).success).toBe(false);
    expect(anchorSchema.safeParse({ ...anchor, startLine: 4, endLine: 3 }).success).toBe(false);
    expect(
      anchorSchema.safeParse({ ...anchor, side: 'BOTH', startLine: 1, endLine: 1 }).success,
    ).toBe(false);
  });
});

describe('severityRank', () => {
  it('orders low < medium < high < critical', () => {
    expect(['critical', 'low', 'high', 'medium'].map((s) => severityRank(s as 'low'))).toEqual([
      3, 0, 2, 1,
    ]);
  });
});
