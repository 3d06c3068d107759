import { describe, expect, it } from '@jest/globals';

import { findingsErrorReason } from '../findings.errors.js';
import type { Anchor } from '../model/finding.model.js';
import { assertAnchor, validateAnchor } from './anchor.js';
import { changedLineSet } from './changed-lines.js';

// src/app.ts: hunk RIGHT 10-16 / LEFT 10-15 (line 12 changed, 13 added), hunk RIGHT 40-45 / LEFT 39-44.
const SET = changedLineSet(
  [
    'diff --git a/src/app.ts b/src/app.ts',
    '--- a/src/app.ts',
    '+++ b/src/app.ts',
    '@@ -10,6 +10,7 @@',
    ' c10',
    ' c11',
    '-old12',
    '+new12',
    '+new13',
    ' c14',
    ' c15',
    ' c16',
    '@@ -39,6 +40,6 @@',
    ' c40',
    ' c41',
    '-old',
    '+new42',
    ' c43',
    ' c44',
    ' c45',
    'diff --git a/logo.png b/logo.png',
    'Binary files a/logo.png and b/logo.png differ',
    'diff --git a/old.ts b/new.ts',
    'similarity index 100%',
    'rename from old.ts',
    'rename to new.ts',
    'diff --git a/gone.ts b/gone.ts',
    'deleted file mode 100644',
    '--- a/gone.ts',
    '+++ /dev/null',
    '@@ -1,2 +0,0 @@',
    '-a',
    '-b',
    '',
  ].join('\n'),
);

const at = (
  startLine: number | null,
  endLine: number | null,
  side: 'LEFT' | 'RIGHT' = 'RIGHT',
  file = 'src/app.ts',
): Anchor => ({
  file,
  startLine,
  endLine,
  side,
});

describe('validateAnchor', () => {
  it('accepts a range inside one hunk and says whether it touches a changed line', () => {
    expect(validateAnchor(at(12, 13), SET)).toEqual({
      ok: true,
      scope: 'lines',
      hunk: { start: 10, end: 16 },
      touchesChange: true,
    });
    expect(validateAnchor(at(14, 16), SET)).toMatchObject({ ok: true, touchesChange: false });
  });

  it('accepts LEFT lines of the old version, removed or context', () => {
    expect(validateAnchor(at(12, 12, 'LEFT'), SET)).toMatchObject({
      ok: true,
      touchesChange: true,
    });
    expect(validateAnchor(at(15, 15, 'LEFT'), SET)).toMatchObject({
      ok: true,
      touchesChange: false,
    });
    expect(validateAnchor(at(16, 16, 'LEFT'), SET)).toMatchObject({
      ok: false,
      reason: 'outside_diff',
    });
  });

  it('accepts a file-level anchor on any file of the diff, binary ones included', () => {
    expect(validateAnchor(at(null, null), SET)).toEqual({ ok: true, scope: 'file' });
    expect(validateAnchor(at(null, null, 'RIGHT', 'logo.png'), SET)).toEqual({
      ok: true,
      scope: 'file',
    });
  });

  it('refuses lines outside every hunk and names the closest commentable range of the same length', () => {
    const check = validateAnchor(at(20, 22), SET);
    expect(check).toMatchObject({
      ok: false,
      reason: 'outside_diff',
      suggestion: at(14, 16),
    });
    expect(check.ok ? '' : check.message).toContain(
      'commentable RIGHT lines of src/app.ts: 10-16, 40-45',
    );
    expect(validateAnchor(at(35, 37), SET)).toMatchObject({ suggestion: at(40, 42) });
  });

  it('narrows a range that only partly overlaps a hunk to the overlap', () => {
    const check = validateAnchor(at(44, 50), SET);
    expect(check).toMatchObject({ ok: false, reason: 'outside_diff', suggestion: at(44, 45) });
    expect(check.ok ? '' : check.message).toContain('are only partly in the diff');
  });

  it('refuses a range spanning two hunks (GitHub wants start and end in one)', () => {
    const check = validateAnchor(at(15, 41), SET);
    expect(check).toMatchObject({ ok: false, reason: 'spans_hunks', suggestion: at(15, 16) });
    expect(check.ok ? '' : check.message).toContain('one finding per hunk');
  });

  it('points a renamed file to its new name and refuses files the diff does not touch', () => {
    expect(validateAnchor(at(1, 1, 'RIGHT', 'old.ts'), SET)).toMatchObject({
      ok: false,
      reason: 'file_renamed',
      suggestion: at(1, 1, 'RIGHT', 'new.ts'),
    });
    const missing = validateAnchor(at(1, 1, 'RIGHT', 'src/other.ts'), SET);
    expect(missing).toMatchObject({ ok: false, reason: 'file_not_in_diff', suggestion: null });
    expect(missing.ok ? '' : missing.message).toContain(
      'Files in the diff: src/app.ts, logo.png, new.ts, gone.ts',
    );
  });

  it('refuses lines of a binary file and offers the file-level anchor', () => {
    expect(validateAnchor(at(1, 1, 'RIGHT', 'logo.png'), SET)).toMatchObject({
      reason: 'binary_file',
      suggestion: at(null, null, 'RIGHT', 'logo.png'),
    });
  });

  it('refuses the side a file has no lines on and names the other side', () => {
    const check = validateAnchor(at(1, 2, 'RIGHT', 'gone.ts'), SET);
    expect(check).toMatchObject({ ok: false, reason: 'side_empty' });
    expect(check.ok ? '' : check.message).toContain('was deleted');
    expect(check.ok ? '' : check.message).toContain('Use side LEFT');
    expect(validateAnchor(at(1, 2, 'LEFT', 'gone.ts'), SET)).toMatchObject({ ok: true });
  });

  it('offers the file-level anchor for a file the diff shows no lines of (a pure rename)', () => {
    const check = validateAnchor(at(1, 1, 'RIGHT', 'new.ts'), SET);
    expect(check).toMatchObject({
      ok: false,
      reason: 'side_empty',
      suggestion: at(null, null, 'RIGHT', 'new.ts'),
    });
    expect(check.ok ? '' : check.message).toContain('file the finding without lines');
  });

  it.each([
    [0, 1],
    [5, 4],
    [5, null],
  ])('refuses the malformed range %p-%p', (start, end) => {
    expect(validateAnchor(at(start, end), SET)).toMatchObject({
      ok: false,
      reason: 'invalid_range',
    });
  });
});

describe('assertAnchor', () => {
  it('throws the refusal as a PRECONDITION_FAILED the model can act on', () => {
    expect.assertions(3);
    try {
      assertAnchor(at(20, 22), SET);
    } catch (error) {
      expect(findingsErrorReason(error)).toBe('anchor_not_commentable');
      expect(error).toMatchObject({ code: 'PRECONDITION_FAILED', retryable: false });
      expect(error).toMatchObject({
        details: { rejection: 'outside_diff', suggestion: at(14, 16) },
      });
    }
  });
});
