/** The verdict on a replayed patch. */
export interface PatchComparison {
  /** True only when both patches are the same bytes (no submission on both sides counts as equal). */
  identical: boolean;
  /** Empty when identical; otherwise a unified diff from the recorded to the replayed patch. */
  summary: string;
}

/** Lines of context around each change in the summary. */
const CONTEXT = 2;
/** Beyond this many lines per side the summary shows only where the patches start to differ. */
const MAX_DIFF_LINES = 3000;

type Edit = { kind: ' ' | '-' | '+'; text: string };

/** A line-level shortest edit script (longest common subsequence, O(n·m)). */
function editScript(before: readonly string[], after: readonly string[]): Edit[] {
  const n = before.length;
  const m = after.length;
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i -= 1) {
    const row = table[i] as Uint32Array;
    const next = table[i + 1] as Uint32Array;
    for (let j = m - 1; j >= 0; j -= 1) {
      row[j] =
        before[i] === after[j] ? (next[j + 1] ?? 0) + 1 : Math.max(next[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const edits: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      edits.push({ kind: ' ', text: before[i++] ?? '' });
      j += 1;
    } else if (i < n && (j === m || (table[i + 1]?.[j] ?? 0) >= (table[i]?.[j + 1] ?? 0))) {
      // Deletions first, as diff tools print them.
      edits.push({ kind: '-', text: before[i++] ?? '' });
    } else {
      edits.push({ kind: '+', text: after[j++] ?? '' });
    }
  }
  return edits;
}

/** Groups an edit script into unified hunks with {@link CONTEXT} lines around each change. */
function hunks(edits: readonly Edit[]): string[] {
  const keep = edits.map((_, index) =>
    edits
      .slice(Math.max(0, index - CONTEXT), index + CONTEXT + 1)
      .some((edit) => edit.kind !== ' '),
  );
  const out: string[] = [];
  let oldLine = 1;
  let newLine = 1;
  let index = 0;
  while (index < edits.length) {
    if (!keep[index]) {
      const edit = edits[index];
      if (edit?.kind !== '+') oldLine += 1;
      if (edit?.kind !== '-') newLine += 1;
      index += 1;
      continue;
    }
    const start = index;
    while (index < edits.length && keep[index]) index += 1;
    const block = edits.slice(start, index);
    const oldCount = block.filter((e) => e.kind !== '+').length;
    const newCount = block.filter((e) => e.kind !== '-').length;
    out.push(`@@ -${oldLine},${oldCount} +${newLine},${newCount} @@`);
    out.push(...block.map((e) => `${e.kind}${e.text}`));
    oldLine += oldCount;
    newLine += newCount;
  }
  return out;
}

function firstDifference(before: readonly string[], after: readonly string[]): string {
  let line = 0;
  while (line < before.length && before[line] === after[line]) line += 1;
  return [
    `the patches first differ at line ${line + 1}:`,
    `- ${before[line] ?? '(end of patch)'}`,
    `+ ${after[line] ?? '(end of patch)'}`,
  ].join('\n');
}

/**
 * Compares a replayed patch with the recorded submission, byte for byte, and summarises any
 * difference as a unified diff of the two patches (recorded → replayed).
 */
export function comparePatches(recorded: string | null, replayed: string | null): PatchComparison {
  const before = recorded ?? '';
  const after = replayed ?? '';
  if (before === after) return { identical: true, summary: '' };
  const header = [
    `--- recorded submission (${Buffer.byteLength(before)} bytes)`,
    `+++ replayed patch (${Buffer.byteLength(after)} bytes)`,
  ];
  const beforeLines = before.split('\n');
  const afterLines = after.split('\n');
  if (beforeLines.length > MAX_DIFF_LINES || afterLines.length > MAX_DIFF_LINES) {
    return {
      identical: false,
      summary: [...header, firstDifference(beforeLines, afterLines)].join('\n'),
    };
  }
  const body = hunks(editScript(beforeLines, afterLines));
  return { identical: false, summary: [...header, ...body].join('\n') };
}
