import type { ScmChangedFile } from '../ports/scm.port.js';

/** The whole diff's virtual file, and each file's under {@link DIFFS_DIR}. */
export const DIFF_FILE = 'DIFF.patch';
export const DIFFS_DIR = 'diffs';

/** Characters of the whole diff `DIFF.patch` holds before it points at the per-file diffs. */
export const DEFAULT_MAX_DIFF_CHARS = 200_000;

/** Where one file's diff is served: `diffs/<path>.patch`. */
export const diffPathOf = (path: string): string => `${DIFFS_DIR}/${path}.patch`;

/**
 * One file's part of the diff, in `git diff` form: the headers GitHub leaves out of its `patch`,
 * then the hunks. A file GitHub shows no text diff for (binary, or too large) says so.
 */
export function fileDiff(file: ScmChangedFile): string {
  const before = file.status === 'added' ? '/dev/null' : `a/${file.path}`;
  const after = file.status === 'removed' ? '/dev/null' : `b/${file.path}`;
  const header = `diff --git a/${file.path} b/${file.path}\n--- ${before}\n+++ ${after}`;
  const body =
    file.patch ??
    `(GitHub shows no text diff for this file: binary or too large; ${file.status}, ` +
      `+${file.additions} -${file.deletions})`;
  return `${header}\n${body}\n`;
}

/**
 * The whole pull request's diff, file after file, up to `maxChars`: past it, the files not shown
 * are named with where each one's diff is, so the model can read on instead of guessing.
 */
export function wholeDiff(
  files: readonly ScmChangedFile[],
  maxChars: number = DEFAULT_MAX_DIFF_CHARS,
): string {
  const sections = files.map(fileDiff);
  const total = sections.reduce((sum, section) => sum + section.length, 0);
  if (total <= maxChars) return sections.join('');
  const kept: string[] = [];
  let used = 0;
  for (const section of sections) {
    if (used + section.length > maxChars) break;
    kept.push(section);
    used += section.length;
  }
  const rest = files.slice(kept.length).map((file) => diffPathOf(file.path));
  const partly = kept.length === 0 && sections[0] ? [sections[0].slice(0, maxChars)] : [];
  const shown = [...kept, ...partly].join('');
  return (
    `${shown}${shown.endsWith('\n') ? '' : '\n'}` +
    `[${DIFF_FILE} is cut here: the diff is ${total} characters over ${files.length} files and ` +
    `this file holds ${maxChars}. Read each remaining file's whole diff in its own file: ` +
    `${rest.join(', ')}]\n`
  );
}
