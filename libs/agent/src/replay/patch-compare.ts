/**
 * What kind of difference two patches have, from the mildest: `none` (same bytes), `whitespace`
 * (equal once line endings and surrounding whitespace are normalised), `index` (same file
 * contents, different `index` lines: blob hashes, their abbreviation or the mode), `content`.
 */
export type PatchDifference = 'none' | 'whitespace' | 'index' | 'content';

/** The verdict on a replayed patch. */
export interface PatchComparison {
  /**
   * SWE-agent's verdict: equal after CRLF → LF and stripping leading and trailing whitespace
   * (no submission on both sides counts as equal). `index` lines count.
   */
  identical: boolean;
  /** True only when both patches are the same bytes. */
  byteIdentical: boolean;
  difference: PatchDifference;
  /**
   * Empty when the bytes are equal; otherwise which kind of difference it is, then (for
   * `index`) the differing `index` lines or (for `content`) a unified diff from the recorded to
   * the replayed patch, `index` lines left out.
   */
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

/** SWE-agent's normalisation for comparing submissions: CRLF → LF, then strip. */
export function normalisePatch(patch: string | null): string {
  return (patch ?? '').replace(/\r\n/g, '\n').trim();
}

/** A git `index <old>..<new>[ <mode>]` header line. */
const INDEX_LINE = /^index [0-9a-f]+\.\.[0-9a-f]+( [0-7]{6})?$/;

function withoutIndexLines(lines: readonly string[]): string[] {
  return lines.filter((line) => !INDEX_LINE.test(line));
}

function byteHeader(before: string, after: string): string[] {
  return [
    `--- recorded submission (${Buffer.byteLength(before)} bytes)`,
    `+++ replayed patch (${Buffer.byteLength(after)} bytes)`,
  ];
}

/** Whether two `index` lines name the same blobs and mode, however abbreviated. */
function sameBlobs(recorded: string, replayed: string): boolean {
  const parts = (line: string) => line.slice('index '.length).split(/\.\.| /);
  const [was, now] = [parts(recorded), parts(replayed)];
  return (
    was.length === now.length &&
    was.every((part, i) => {
      const other = now[i] ?? '';
      return part.startsWith(other) || other.startsWith(part);
    })
  );
}

/** Why two patches with equal file contents differ: their `index` lines, side by side. */
function indexSummary(before: readonly string[], after: readonly string[]): string[] {
  const recorded = before.filter((line) => INDEX_LINE.test(line));
  const replayed = after.filter((line) => INDEX_LINE.test(line));
  const lines: string[] = [];
  let abbreviationOnly = recorded.length === replayed.length;
  for (let i = 0; i < Math.max(recorded.length, replayed.length); i += 1) {
    const [was, now] = [recorded[i] ?? '(none)', replayed[i] ?? '(none)'];
    if (was === now) continue;
    lines.push(`- ${was}`, `+ ${now}`);
    abbreviationOnly &&= sameBlobs(was, now);
  }
  const why = abbreviationOnly
    ? 'the same blobs, abbreviated to different lengths'
    : 'different blob hashes or modes';
  return [`the file contents are equal; the index lines differ (${why}):`, ...lines];
}

/**
 * Compares a replayed patch with the recorded submission as SWE-agent does (CRLF → LF and
 * strip both, then compare), and reports byte equality separately. `index` lines are compared
 * only when everything else is equal, so a content difference is summarised without them.
 */
export function comparePatches(recorded: string | null, replayed: string | null): PatchComparison {
  const before = recorded ?? '';
  const after = replayed ?? '';
  if (before === after) {
    return { identical: true, byteIdentical: true, difference: 'none', summary: '' };
  }
  const header = byteHeader(before, after);
  const beforeLines = normalisePatch(before).split('\n');
  const afterLines = normalisePatch(after).split('\n');
  if (normalisePatch(before) === normalisePatch(after)) {
    const note =
      'equal once CRLF becomes LF and surrounding whitespace is stripped; the bytes differ';
    return {
      identical: true,
      byteIdentical: false,
      difference: 'whitespace',
      summary: [...header, note].join('\n'),
    };
  }
  const contentBefore = withoutIndexLines(beforeLines);
  const contentAfter = withoutIndexLines(afterLines);
  if (contentBefore.join('\n') === contentAfter.join('\n')) {
    const summary = [...header, ...indexSummary(beforeLines, afterLines)].join('\n');
    return { identical: false, byteIdentical: false, difference: 'index', summary };
  }
  const kind = 'the patches change different content (normalised, index lines left out):';
  const tooLong = contentBefore.length > MAX_DIFF_LINES || contentAfter.length > MAX_DIFF_LINES;
  const body = tooLong
    ? [firstDifference(contentBefore, contentAfter)]
    : hunks(editScript(contentBefore, contentAfter));
  return {
    identical: false,
    byteIdentical: false,
    difference: 'content',
    summary: [...header, kind, ...body].join('\n'),
  };
}
