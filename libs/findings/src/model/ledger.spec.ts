import { describe, expect, it } from '@jest/globals';

import { findingsErrorReason } from '../findings.errors.js';
import { aFinding, sha, T0 } from '../testing/finding.factory.js';
import { findFinding, findingsNeedingAttention, meetsThreshold, openFindings } from './ledger.js';

describe('ledger queries', () => {
  const low = aFinding({ severity: 'low', file: 'a.ts' });
  const highB = aFinding({ severity: 'high', file: 'b.ts', startLine: 3, endLine: 3 });
  const highA = aFinding({ severity: 'high', file: 'a.ts', startLine: 9, endLine: 9 });
  const fileLevel = aFinding({ severity: 'high', file: 'a.ts', startLine: null, endLine: null });
  const closed = aFinding({
    severity: 'critical',
    status: 'dismissed',
    resolution: { kind: 'dismissed', sha: sha('a'), note: 'No.', by: { kind: 'caravel' }, at: T0 },
  });
  const ledger = [low, highB, highA, fileLevel, closed];

  it('lists open findings by severity, file, then line (file-level first)', () => {
    expect(openFindings(ledger).map((f) => f.id)).toEqual([
      fileLevel.id,
      highA.id,
      highB.id,
      low.id,
    ]);
  });

  it('lists findings waiting for the reviewer, closed ones included', () => {
    const replied = { ...closed, recheck: ['reply' as const] };
    expect(findingsNeedingAttention([low, replied]).map((f) => f.id)).toEqual([replied.id]);
  });

  it('finds by id or names the open ones', () => {
    expect(findFinding(ledger, highA.id)).toBe(highA);
    expect.assertions(3);
    try {
      findFinding(ledger, 'f_ffffffffff');
    } catch (error) {
      expect(findingsErrorReason(error)).toBe('finding_not_found');
      expect((error as Error).message).toContain(`Open findings: ${low.id}, ${highB.id}`);
    }
  });

  it('compares severities with a threshold', () => {
    expect(['low', 'medium', 'high'].map((s) => meetsThreshold(s as 'low', 'medium'))).toEqual([
      false,
      true,
      true,
    ]);
  });
});
