import type { AppError } from '@caravel/errors';

import { findingsError } from '../findings.errors.js';
import type { Anchor, Side } from '../model/finding.model.js';
import {
  findChangedFile,
  sideRanges,
  touchesChange,
  type ChangedFile,
  type ChangedLineSet,
  type LineRange,
} from './changed-lines.js';

/** Why an anchor cannot carry an inline comment. */
export type AnchorRejection =
  /** A line below 1, an end before the start, or only one of the two set. */
  | 'invalid_range'
  /** The pull request does not change this file. */
  | 'file_not_in_diff'
  /** The file was renamed: the pull request knows it by its new name. */
  | 'file_renamed'
  /** A binary file has no lines; only a file-level finding fits. */
  | 'binary_file'
  /** The file has no lines on that side (LEFT of an added file, RIGHT of a deleted one). */
  | 'side_empty'
  /** The lines are outside every hunk on that side. */
  | 'outside_diff'
  /** The range starts in one hunk and ends in another (GitHub wants one hunk). */
  | 'spans_hunks';

/** What {@link validateAnchor} says about an anchor. */
export type AnchorCheck =
  | {
      ok: true;
      scope: 'lines';
      /** The hunk range (on the anchor's side) holding the lines. */
      hunk: LineRange;
      /** Whether the lines include one the diff added (RIGHT) or removed (LEFT), not only context. */
      touchesChange: boolean;
    }
  | { ok: true; scope: 'file' }
  | {
      ok: false;
      reason: AnchorRejection;
      /** For the model: what is wrong and what to do instead. */
      message: string;
      /** The nearest anchor that would be accepted, when there is one. */
      suggestion: Anchor | null;
    };

/**
 * Whether GitHub accepts an inline comment on `anchor` in the pull request whose changed-line set
 * is `set`: every line of the range must be inside one hunk, on the anchor's side (RIGHT: added
 * or context lines of the new version; LEFT: removed or context lines of the old one). A
 * file-level anchor (no lines) is accepted for any file of the diff. When refused, the answer
 * names the nearest commentable range so the reviewer can re-anchor or file it at file level.
 */
export function validateAnchor(anchor: Anchor, set: ChangedLineSet): AnchorCheck {
  const { startLine: start, endLine: end } = anchor;
  if (
    (start === null) !== (end === null) ||
    (start !== null && end !== null && (start < 1 || end < start))
  ) {
    return reject(
      'invalid_range',
      `${describe(anchor)} is not a range: give a start line of 1 or more and an end line not before it, or neither for a file-level finding.`,
      null,
    );
  }
  const file = findChangedFile(set, anchor.file);
  if (!file) return fileMissing(anchor, set);
  if (start === null || end === null) return { ok: true, scope: 'file' };
  if (file.binary) {
    return reject(
      'binary_file',
      `${anchor.file} is a binary file: it has no lines to comment on. File the finding without lines (file-level).`,
      { ...anchor, startLine: null, endLine: null },
    );
  }
  const ranges = sideRanges(file, anchor.side);
  if (ranges.length === 0) return sideEmpty(anchor, file);
  const holder = ranges.find((range) => range.start <= start && end <= range.end);
  if (holder) {
    return {
      ok: true,
      scope: 'lines',
      hunk: holder,
      touchesChange: touchesChange(file, anchor.side, start, end),
    };
  }
  const nearest = nearestRange(ranges, start, end);
  const suggestion = { ...anchor, startLine: nearest.start, endLine: nearest.end };
  const startHunk = ranges.find((range) => range.start <= start && start <= range.end);
  const endHunk = ranges.find((range) => range.start <= end && end <= range.end);
  if (startHunk && endHunk) {
    return reject(
      'spans_hunks',
      `${describe(anchor)} starts in the hunk of lines ${span(startHunk)} and ends in the one of lines ${span(endHunk)}; a comment must stay inside one hunk. Anchor it on ${span(nearest)} (${anchor.side}), or split it into one finding per hunk.`,
      suggestion,
    );
  }
  const partly = ranges.some((range) => range.start <= end && start <= range.end);
  const verb = `${end > start ? 'are' : 'is'} ${partly ? 'only partly' : 'not'}`;
  return reject(
    'outside_diff',
    `${describe(anchor)} ${verb} in the diff (commentable ${anchor.side} lines of ${anchor.file}: ${ranges.map(span).join(', ')}). The closest range you can anchor on is ${span(nearest)}; use it if the finding is about those lines, or file it without lines (file-level) if it is about the file.`,
    suggestion,
  );
}

/**
 * {@link validateAnchor} for tools: returns the accepted check, or throws the refusal as a coded
 * error (`PRECONDITION_FAILED`, reason `anchor_not_commentable`, details `rejection` and
 * `suggestion`) whose message the model reads.
 */
export function assertAnchor(
  anchor: Anchor,
  set: ChangedLineSet,
): Extract<AnchorCheck, { ok: true }> {
  const check = validateAnchor(anchor, set);
  if (check.ok) return check;
  throw anchorError(check);
}

/** The coded error of a refused anchor. */
export function anchorError(check: Extract<AnchorCheck, { ok: false }>): AppError {
  return findingsError('PRECONDITION_FAILED', 'anchor_not_commentable', check.message, {
    rejection: check.reason,
    suggestion: check.suggestion,
  });
}

function fileMissing(anchor: Anchor, set: ChangedLineSet): AnchorCheck {
  const renamed = set.files.find(
    (file) => file.oldPath === anchor.file && file.status === 'renamed',
  );
  if (renamed) {
    return reject(
      'file_renamed',
      `${anchor.file} was renamed to ${renamed.path} in this pull request: anchor the finding on file ${renamed.path}.`,
      { ...anchor, file: renamed.path },
    );
  }
  const names = set.files.slice(0, 20).map((file) => file.path);
  const more =
    set.files.length > names.length ? ` and ${set.files.length - names.length} more` : '';
  return reject(
    'file_not_in_diff',
    `${anchor.file} is not changed by this pull request, so no comment can be anchored on it. Files in the diff: ${names.join(', ') || 'none'}${more}.`,
    null,
  );
}

function sideEmpty(anchor: Anchor, file: ChangedFile): AnchorCheck {
  const fileLevel = { ...anchor, startLine: null, endLine: null };
  if (file.hunks.length === 0) {
    return reject(
      'side_empty',
      `The diff shows no lines of ${anchor.file} (an empty file, or only its mode or name changed): file the finding without lines (file-level).`,
      fileLevel,
    );
  }
  const other: Side = anchor.side === 'RIGHT' ? 'LEFT' : 'RIGHT';
  const why =
    file.status === 'deleted'
      ? 'was deleted'
      : file.status === 'added'
        ? 'was added'
        : `has no ${anchor.side} lines in this diff`;
  return reject(
    'side_empty',
    `${anchor.file} ${why}: it has no ${anchor.side} lines to comment on. Use side ${other}${anchor.side === 'RIGHT' ? ' (the removed lines)' : ' (the new lines)'} or a file-level finding.`,
    null,
  );
}

/** The range inside `ranges` closest to start..end, as long as it (clamped to the hunk). */
function nearestRange(ranges: readonly LineRange[], start: number, end: number): LineRange {
  let best: { range: LineRange; distance: number } | undefined;
  for (const range of ranges) {
    const distance =
      range.end < start ? start - range.end : range.start > end ? range.start - end : 0;
    if (!best || distance < best.distance) best = { range, distance };
  }
  const hunk = (best as { range: LineRange }).range;
  if (hunk.start <= end && start <= hunk.end) {
    return { start: Math.max(start, hunk.start), end: Math.min(end, hunk.end) };
  }
  const length = end - start;
  return hunk.end < start
    ? { start: Math.max(hunk.start, hunk.end - length), end: hunk.end }
    : { start: hunk.start, end: Math.min(hunk.end, hunk.start + length) };
}

function reject(reason: AnchorRejection, message: string, suggestion: Anchor | null): AnchorCheck {
  return { ok: false, reason, message, suggestion };
}

function describe(anchor: Anchor): string {
  const { startLine: start, endLine: end } = anchor;
  const lines = start === end ? `line ${start}` : `lines ${start}-${end}`;
  return `${lines} (${anchor.side}) of ${anchor.file}`;
}

function span(range: LineRange): string {
  return range.start === range.end ? `${range.start}` : `${range.start}-${range.end}`;
}
