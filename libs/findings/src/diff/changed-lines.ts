import type { Side } from '../model/finding.model.js';
import {
  parseUnifiedDiff,
  type DiffFile,
  type DiffFileStatus,
  type DiffHunk,
} from './unified-diff.js';

/** Lines `start`..`end` of one version of a file, 1-based and inclusive. */
export interface LineRange {
  start: number;
  end: number;
}

/**
 * What one hunk lets a reviewer comment on: on the RIGHT its added and context lines (a range of
 * the new version), on the LEFT its removed and context lines (a range of the old one). A side
 * the hunk has no lines on is null.
 */
export interface HunkSpan {
  left: LineRange | null;
  right: LineRange | null;
}

/** One file of a pull request's diff, as far as anchoring a comment goes. */
export interface ChangedFile {
  /** The file's path in the pull request (the new name; the old one for a deleted file). */
  path: string;
  /** The name before a rename or copy; null for an added file. */
  oldPath: string | null;
  status: DiffFileStatus;
  binary: boolean;
  /** RIGHT lines added or changed, as ranges of the new version. */
  added: LineRange[];
  /** LEFT lines removed or changed, as ranges of the old version. */
  removed: LineRange[];
  hunks: HunkSpan[];
}

/**
 * Per file, the lines a diff changed and the ranges its hunks show. Plain data: it can be stored
 * beside a review or sent in a message, and the functions below read it.
 */
export interface ChangedLineSet {
  files: ChangedFile[];
}

/** Builds the changed-line set of a diff (its text, or what {@link parseUnifiedDiff} made of it). */
export function changedLineSet(diff: string | readonly DiffFile[]): ChangedLineSet {
  const files = typeof diff === 'string' ? parseUnifiedDiff(diff) : diff;
  const byPath = new Map<string, ChangedFile>();
  for (const file of files) {
    const entry = changedFileOf(file);
    const known = byPath.get(entry.path);
    // A type change (file to symlink) is a deletion and an addition of one path: one entry.
    if (known) {
      known.added.push(...entry.added);
      known.removed.push(...entry.removed);
      known.hunks.push(...entry.hunks);
      known.binary ||= entry.binary;
      known.status = 'modified';
    } else {
      byPath.set(entry.path, entry);
    }
  }
  return { files: [...byPath.values()] };
}

/** The file of the set at `path` (its name in the pull request). */
export function findChangedFile(set: ChangedLineSet, path: string): ChangedFile | undefined {
  return set.files.find((file) => file.path === path);
}

/** The commentable range of each hunk on one side, in file order (hunks without lines there skipped). */
export function sideRanges(file: ChangedFile, side: Side): LineRange[] {
  const ranges: LineRange[] = [];
  for (const hunk of file.hunks) {
    const range = side === 'RIGHT' ? hunk.right : hunk.left;
    if (range) ranges.push(range);
  }
  return ranges;
}

/** Whether lines `start`..`end` of `side` include a line the diff added (RIGHT) or removed (LEFT). */
export function touchesChange(file: ChangedFile, side: Side, start: number, end: number): boolean {
  const ranges = side === 'RIGHT' ? file.added : file.removed;
  return ranges.some((range) => range.start <= end && start <= range.end);
}

function changedFileOf(file: DiffFile): ChangedFile {
  const path = (file.newPath ?? file.oldPath) as string;
  const added: number[] = [];
  const removed: number[] = [];
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line.kind === 'added' && line.newLine !== null) added.push(line.newLine);
      if (line.kind === 'removed' && line.oldLine !== null) removed.push(line.oldLine);
    }
  }
  return {
    path,
    oldPath: file.status === 'added' ? null : file.oldPath,
    status: file.status,
    binary: file.binary,
    added: toRanges(added),
    removed: toRanges(removed),
    hunks: file.hunks.map(spanOf),
  };
}

function spanOf(hunk: DiffHunk): HunkSpan {
  return {
    left:
      hunk.oldLines > 0 ? { start: hunk.oldStart, end: hunk.oldStart + hunk.oldLines - 1 } : null,
    right:
      hunk.newLines > 0 ? { start: hunk.newStart, end: hunk.newStart + hunk.newLines - 1 } : null,
  };
}

/** Sorted line numbers as maximal runs: [1,2,3,7] -> [{1,3},{7,7}]. */
function toRanges(lines: readonly number[]): LineRange[] {
  const ranges: LineRange[] = [];
  for (const line of lines) {
    const last = ranges[ranges.length - 1];
    if (last && line === last.end + 1) last.end = line;
    else ranges.push({ start: line, end: line });
  }
  return ranges;
}
