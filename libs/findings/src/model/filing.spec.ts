import { describe, expect, it } from '@jest/globals';

import { findingsErrorReason } from '../findings.errors.js';
import { PR_LINES } from '../testing/diffs.js';
import { aFinding, sha, T0 } from '../testing/finding.factory.js';
import { thrownReason } from '../testing/thrown.js';
import { fileFinding, type FilingContext } from './filing.js';
import { findingSchema } from './finding.model.js';
import { fingerprintOf } from './fingerprint.js';

const CONTEXT: FilingContext = {
  headSha: sha('a'),
  changedLines: PR_LINES,
  at: T0,
  newId: () => 'f_00000000aa',
};

const draft = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  severity: 'high',
  confidence: 'medium',
  category: 'correctness',
  title: 'Index can run past the end',
  file: 'src/app.ts',
  start_line: 10,
  end_line: 12,
  description: 'When `items` is empty, `items[i + 1]` reads undefined and the sum becomes NaN.',
  ...overrides,
});

describe('fileFinding', () => {
  it('files an open finding at the head, anchored in the diff, that the schema accepts', () => {
    const outcome = fileFinding([], draft(), { ...CONTEXT, diffHunk: () => '@@ -8,11 +8,13 @@' });
    expect(outcome.kind).toBe('added');
    const finding = outcome.finding;
    expect(findingSchema.parse(finding)).toEqual(finding);
    expect(finding).toMatchObject({
      id: 'f_00000000aa',
      author: { kind: 'caravel' },
      status: 'open',
      inDiff: true,
      firstSeenSha: sha('a'),
      lastConfirmedSha: sha('a'),
      anchor: { file: 'src/app.ts', startLine: 10, endLine: 12, side: 'RIGHT', sha: sha('a') },
      diffHunk: '@@ -8,11 +8,13 @@',
      surface: { state: 'not_surfaced' },
      fingerprint: fingerprintOf({
        file: 'src/app.ts',
        startLine: 10,
        endLine: 12,
        side: 'RIGHT',
        description: draft()['description'] as string,
      }),
    });
  });

  it('takes a single line, a file-level finding, and a path written with ./', () => {
    const one = fileFinding([], draft({ start_line: 11, end_line: undefined }), CONTEXT).finding;
    expect([one.startLine, one.endLine]).toEqual([11, 11]);
    const fileLevel = fileFinding(
      [],
      draft({ start_line: null, end_line: null, file: './docs/guide.md' }),
      CONTEXT,
    ).finding;
    expect(fileLevel).toMatchObject({
      file: 'docs/guide.md',
      startLine: null,
      endLine: null,
      inDiff: true,
    });
  });

  it('refuses lines outside the diff and says where it could be anchored', () => {
    expect.assertions(2);
    try {
      fileFinding([], draft({ start_line: 30, end_line: 31 }), CONTEXT);
    } catch (error) {
      expect(findingsErrorReason(error)).toBe('anchor_not_commentable');
      expect((error as Error).message).toContain('The closest range you can anchor on is 19-20');
    }
  });

  it('lists every bad field of the draft in one error', () => {
    expect.assertions(3);
    try {
      fileFinding(
        [],
        draft({ severity: 'blocker', title: 'x'.repeat(121), start_line: 0 }),
        CONTEXT,
      );
    } catch (error) {
      expect(findingsErrorReason(error)).toBe('invalid_input');
      expect((error as Error).message).toContain('severity');
      expect((error as Error).message).toContain('title: at most 120 characters');
    }
  });

  it('drops a first description line that restates the title, and refuses a description that is only the title', () => {
    const outcome = fileFinding(
      [],
      draft({ description: '**Index can run past the end**\nThe sum becomes NaN.' }),
      CONTEXT,
    );
    expect(outcome.finding.description).toBe('The sum becomes NaN.');
    expect(
      thrownReason(() =>
        fileFinding([], draft({ description: 'index can run past the END' }), CONTEXT),
      ),
    ).toBe('description_repeats_title');
  });

  it('keeps a suggestion of up to 4 lines and drops a longer one with a note', () => {
    const kept = fileFinding([], draft({ suggestion: 'a\nb\nc\nd\n' }), CONTEXT);
    expect(kept.finding.suggestion).toBe('a\nb\nc\nd');
    const dropped = fileFinding([], draft({ suggestion: 'a\nb\nc\nd\ne' }), CONTEXT);
    expect(dropped.finding.suggestion).toBeNull();
    expect(dropped.notes.join(' ')).toContain('5 lines, at most 4');
  });

  it('drops a suggestion on LEFT lines, which it could not replace', () => {
    const outcome = fileFinding(
      [],
      draft({ side: 'LEFT', start_line: 10, end_line: 10, suggestion: 'x' }),
      CONTEXT,
    );
    expect(outcome.finding.suggestion).toBeNull();
    expect(outcome.notes.join(' ')).toContain('needs a RIGHT line anchor');
  });

  it('notes a finding on context lines only', () => {
    const outcome = fileFinding([], draft({ start_line: 15, end_line: 16 }), CONTEXT);
    expect(outcome.notes.join(' ')).toContain('unchanged context');
  });

  it('returns the open finding when the same one is filed again (idempotent)', () => {
    const first = fileFinding([], draft(), CONTEXT).finding;
    const again = fileFinding(
      [first],
      draft({ description: `  ${draft()['description'] as string}`.toUpperCase() }),
      CONTEXT,
    );
    expect(again).toMatchObject({ kind: 'duplicate', finding: first });
  });

  it('recognises a repeat at the lines the finding moved to', () => {
    const moved = aFinding({
      description: 'The sum becomes NaN for an empty list.',
      startLine: 4,
      endLine: 6,
      anchor: { file: 'src/app.ts', startLine: 10, endLine: 12, side: 'RIGHT', sha: sha('a') },
    });
    const again = fileFinding(
      [moved],
      draft({ description: 'The sum becomes NaN for an empty list.' }),
      CONTEXT,
    );
    expect(again).toMatchObject({ kind: 'duplicate', finding: { id: moved.id } });
  });

  it('refuses to file again what a person dismissed, quoting the note', () => {
    const first = fileFinding([], draft(), CONTEXT).finding;
    const dismissed = {
      ...first,
      status: 'dismissed' as const,
      resolution: {
        kind: 'dismissed' as const,
        sha: sha('a'),
        note: 'Empty lists never reach this.',
        by: { kind: 'person' as const, login: 'ada' },
        at: T0,
      },
    };
    expect.assertions(3);
    try {
      fileFinding([dismissed], draft(), CONTEXT);
    } catch (error) {
      expect(findingsErrorReason(error)).toBe('duplicate');
      expect(error).toMatchObject({ code: 'CONFLICT' });
      expect((error as Error).message).toContain('@ada dismissed this finding');
    }
  });

  it('files anew what was resolved by a commit (a regression)', () => {
    const first = fileFinding([], draft(), CONTEXT).finding;
    const resolved = {
      ...first,
      status: 'resolved' as const,
      resolution: { kind: 'code_removed' as const, sha: sha('b'), at: T0 },
    };
    expect(
      fileFinding([resolved], draft(), { ...CONTEXT, newId: () => 'f_00000000bb' }),
    ).toMatchObject({
      kind: 'added',
      finding: { id: 'f_00000000bb' },
    });
  });
});
