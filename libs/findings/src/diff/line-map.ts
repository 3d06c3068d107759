import type { Anchor } from '../model/finding.model.js';
import type { DiffFile, DiffHunk } from './unified-diff.js';

/**
 * Where an anchor's code went in a later version, given the diff between the two versions:
 * - `unchanged`: same file, same lines;
 * - `moved`: the lines are intact, at other numbers or in a renamed file;
 * - `changed`: some anchored lines were removed or edited, or lines were inserted among them
 *   (the anchor now spans what remains and what replaced them);
 * - `rewritten`: every anchored line was replaced (the anchor spans the replacement);
 * - `deleted`: every anchored line (or the file) is gone with nothing in their place.
 */
export type AnchorMove =
  { kind: 'unchanged' | 'moved' | 'changed' | 'rewritten'; anchor: Anchor } | { kind: 'deleted' };

/**
 * Maps `anchor`, whose lines refer to the old side of `diff`, to the new side. For a RIGHT anchor
 * `diff` is the diff from the reviewed head to the new head; for a LEFT anchor, the diff between
 * the two merge bases (if the base did not move, LEFT lines stay where they are). A file the
 * diff does not mention is unchanged.
 */
export function mapAnchor(anchor: Anchor, diff: readonly DiffFile[]): AnchorMove {
  const file = diff.find((entry) => entry.oldPath === anchor.file && entry.status !== 'copied');
  if (!file) return { kind: 'unchanged', anchor };
  if (file.status === 'deleted' || file.newPath === null) return { kind: 'deleted' };
  const renamed = file.newPath !== anchor.file;
  const { startLine: start, endLine: end } = anchor;
  if (start === null || end === null) {
    return { kind: renamed ? 'moved' : 'unchanged', anchor: { ...anchor, file: file.newPath } };
  }
  const survivors: number[] = [];
  for (let line = start; line <= end; line += 1) {
    const mapped = mapOldLine(line, file.hunks);
    if (mapped !== null) survivors.push(mapped);
  }
  const touching = file.hunks
    .flatMap((hunk) => blocksOf(hunk))
    .filter((block) => touches(block, start, end));
  const replacements = touching.flatMap((block) => block.added);
  const lines = [...survivors, ...replacements];
  if (lines.length === 0) return { kind: 'deleted' };
  const moved = {
    ...anchor,
    file: file.newPath,
    startLine: Math.min(...lines),
    endLine: Math.max(...lines),
  };
  if (survivors.length === 0) return { kind: 'rewritten', anchor: moved };
  if (touching.length > 0) return { kind: 'changed', anchor: moved };
  const shifted = moved.startLine !== start || moved.endLine !== end;
  return { kind: renamed || shifted ? 'moved' : 'unchanged', anchor: moved };
}

/** The new number of old line `line`, or null when the diff removed it. */
export function mapOldLine(line: number, hunks: readonly DiffHunk[]): number | null {
  let delta = 0;
  for (const hunk of hunks) {
    const first = hunk.oldLines === 0 ? hunk.oldStart + 1 : hunk.oldStart;
    if (line < first) break;
    if (line < first + hunk.oldLines) {
      const entry = hunk.lines.find((candidate) => candidate.oldLine === line);
      return entry?.kind === 'context' ? entry.newLine : null;
    }
    delta += hunk.newLines - hunk.oldLines;
  }
  return line + delta;
}

/**
 * A run of removed and added lines with no context between them. `before` is the first old line
 * at or after the block: a pure insertion sits between `before - 1` and `before`.
 */
interface Block {
  removed: number[];
  added: number[];
  before: number;
}

function blocksOf(hunk: DiffHunk): Block[] {
  const blocks: Block[] = [];
  let oldCursor = hunk.oldLines === 0 ? hunk.oldStart + 1 : hunk.oldStart;
  let current: Block | undefined;
  for (const line of hunk.lines) {
    if (line.kind === 'context') {
      current = undefined;
      oldCursor += 1;
      continue;
    }
    if (!current) {
      current = { removed: [], added: [], before: oldCursor };
      blocks.push(current);
    }
    if (line.kind === 'removed' && line.oldLine !== null) {
      current.removed.push(line.oldLine);
      oldCursor += 1;
    } else if (line.kind === 'added' && line.newLine !== null) {
      current.added.push(line.newLine);
    }
  }
  return blocks;
}

/** Whether a block removes an anchored line, or inserts lines strictly inside the range. */
function touches(block: Block, start: number, end: number): boolean {
  if (block.removed.length > 0) {
    return block.removed.some((line) => start <= line && line <= end);
  }
  return start < block.before && block.before <= end;
}
