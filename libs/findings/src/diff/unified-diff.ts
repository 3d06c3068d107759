import { findingsError } from '../findings.errors.js';
import { pathOfExtendedHeader, pathOfMarkerLine, pathsOfGitHeader } from './git-path.js';

export type DiffLineKind = 'context' | 'added' | 'removed';

/** One line of a hunk, with its number in the old and the new version (null where it is absent). */
export interface DiffLine {
  kind: DiffLineKind;
  oldLine: number | null;
  newLine: number | null;
  /** The line's content without its marker (a carriage return of a CRLF file stays). */
  text: string;
}

/**
 * A hunk as its header says: `@@ -oldStart,oldLines +newStart,newLines @@ section`. A side with
 * no lines (`-0,0` for a new file, `+12,0` for lines only removed) has `start` = the line before.
 */
export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  section: string;
  lines: DiffLine[];
  /** The hunk as the diff wrote it, header included (what GitHub calls `diff_hunk`). */
  text: string;
}

export type DiffFileStatus = 'added' | 'deleted' | 'modified' | 'renamed' | 'copied';

/** One file of a diff. `oldPath` is null for an added file, `newPath` for a deleted one. */
export interface DiffFile {
  oldPath: string | null;
  newPath: string | null;
  status: DiffFileStatus;
  binary: boolean;
  oldMode: string | null;
  newMode: string | null;
  /** `similarity index` of a rename or copy, in percent. */
  similarity: number | null;
  hunks: DiffHunk[];
}

export interface ParseDiffOptions {
  /** The prefixes of the old and new names (`--src-prefix`/`--dst-prefix`); `a/` and `b/`. */
  prefixes?: readonly [string, string];
}

/**
 * The flags a service should give `git diff` for a diff this parser reads as intended: no colour,
 * no external diff or textconv (a repository's attributes cannot change what is parsed),
 * renames found, standard prefixes.
 */
export const REVIEW_DIFF_FLAGS = [
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--find-renames',
  '--src-prefix=a/',
  '--dst-prefix=b/',
] as const;

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/**
 * Parses `git diff` output (several files, renames and copies, added/deleted/binary files, mode
 * changes, `\ No newline at end of file`, zero-length hunk sides, CRLF, quoted paths) and plain
 * unified diffs (`---`/`+++` without a `diff --git` line). Hunk bodies are read by their header's
 * line counts, so content that looks like a header is never mistaken for one. Text that is not
 * part of a file's diff (a commit message before it, a patch signature) is skipped.
 *
 * @throws AppError BAD_REQUEST `diff_malformed` when a hunk ends early or a header is unreadable;
 *   `diff_combined` for a merge's combined diff.
 */
export function parseUnifiedDiff(text: string, options: ParseDiffOptions = {}): DiffFile[] {
  return new DiffReader(text.split('\n'), options.prefixes ?? ['a/', 'b/']).read();
}

class DiffReader {
  private index = 0;
  private readonly files: DiffFile[] = [];

  constructor(
    private readonly lines: string[],
    private readonly prefixes: readonly [string, string],
  ) {}

  read(): DiffFile[] {
    let current: DiffFile | undefined;
    while (this.index < this.lines.length) {
      const line = this.header(this.index);
      if (line.startsWith('diff --git ')) {
        current = this.gitFile(line.slice('diff --git '.length));
      } else if (line.startsWith('diff --cc ') || line.startsWith('diff --combined ')) {
        throw findingsError(
          'BAD_REQUEST',
          'diff_combined',
          'A combined (merge) diff cannot be reviewed: diff the two commits instead.',
          { line: this.index + 1 },
        );
      } else if (line.startsWith('--- ') && this.header(this.index + 1).startsWith('+++ ')) {
        current = this.plainFile();
      } else if (line.startsWith('@@ ') && current) {
        current.hunks.push(this.hunk());
      } else {
        this.index += 1;
      }
    }
    return this.files;
  }

  /** Line `i` for header matching: a CRLF diff's `\r` does not belong to any header. */
  private header(i: number): string {
    const line = this.lines[i] ?? '';
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }

  private gitFile(rest: string): DiffFile {
    const paths = pathsOfGitHeader(rest, this.prefixes);
    const file = this.newFile(paths?.oldPath ?? null, paths?.newPath ?? null);
    this.index += 1;
    for (; this.index < this.lines.length; this.index += 1) {
      const line = this.header(this.index);
      if (line.startsWith('diff ') || line.startsWith('@@ ')) break;
      if (line.startsWith('--- ') && this.header(this.index + 1).startsWith('+++ ')) {
        this.markerLines(file);
        break;
      }
      this.extendedHeader(file, line);
    }
    if (file.oldPath === null && file.newPath === null) {
      throw this.malformed('a diff --git line whose paths cannot be read');
    }
    return file;
  }

  private extendedHeader(file: DiffFile, line: string): void {
    const value = (prefix: string): string => line.slice(prefix.length);
    if (line.startsWith('new file mode ')) {
      file.status = 'added';
      file.newMode = value('new file mode ');
      file.oldPath = null;
    } else if (line.startsWith('deleted file mode ')) {
      file.status = 'deleted';
      file.oldMode = value('deleted file mode ');
      file.newPath = null;
    } else if (line.startsWith('old mode ')) file.oldMode = value('old mode ');
    else if (line.startsWith('new mode ')) file.newMode = value('new mode ');
    else if (line.startsWith('rename from ')) {
      file.status = 'renamed';
      file.oldPath = pathOfExtendedHeader(value('rename from '));
    } else if (line.startsWith('rename to '))
      file.newPath = pathOfExtendedHeader(value('rename to '));
    else if (line.startsWith('copy from ')) {
      file.status = 'copied';
      file.oldPath = pathOfExtendedHeader(value('copy from '));
    } else if (line.startsWith('copy to ')) file.newPath = pathOfExtendedHeader(value('copy to '));
    else if (line.startsWith('similarity index '))
      file.similarity = parseInt(value('similarity index '), 10);
    else if (line.startsWith('Binary files ') || line === 'GIT binary patch') file.binary = true;
  }

  private plainFile(): DiffFile {
    const file = this.newFile(null, null);
    this.markerLines(file);
    if (file.oldPath === null && file.newPath === null) {
      throw this.malformed('both sides of the file are /dev/null');
    }
    return file;
  }

  /** Reads a `---` line and the `+++` line after it (`this.index` is on the `---` line). */
  private markerLines(file: DiffFile): void {
    const [src, dst] = this.prefixes;
    const oldPath = pathOfMarkerLine(this.header(this.index).slice(4), src);
    const newPath = pathOfMarkerLine(this.header(this.index + 1).slice(4), dst);
    if (oldPath === null && file.status !== 'renamed' && file.status !== 'copied') {
      file.status = 'added';
    }
    if (newPath === null && file.status !== 'renamed' && file.status !== 'copied') {
      file.status = 'deleted';
    }
    file.oldPath = oldPath;
    file.newPath = newPath;
    this.index += 2;
  }

  private hunk(): DiffHunk {
    const headerIndex = this.index;
    const match = HUNK_HEADER.exec(this.header(headerIndex));
    if (!match) throw this.malformed('an unreadable hunk header');
    const [, oldStart, oldCount, newStart, newCount, section] = match;
    const hunk: DiffHunk = {
      oldStart: Number(oldStart),
      oldLines: oldCount === undefined ? 1 : Number(oldCount),
      newStart: Number(newStart),
      newLines: newCount === undefined ? 1 : Number(newCount),
      section: section ?? '',
      lines: [],
      text: '',
    };
    let oldLine = hunk.oldLines === 0 ? hunk.oldStart + 1 : hunk.oldStart;
    let newLine = hunk.newLines === 0 ? hunk.newStart + 1 : hunk.newStart;
    let oldLeft = hunk.oldLines;
    let newLeft = hunk.newLines;
    this.index += 1;
    while (oldLeft > 0 || newLeft > 0 || this.lines[this.index]?.startsWith('\\')) {
      const line = this.lines[this.index];
      if (line === undefined) throw this.malformed('a hunk shorter than its header says');
      this.index += 1;
      const marker = line[0];
      if (marker === '\\') continue;
      const content = line.slice(1);
      // An empty line stands for an empty context line whose leading space was stripped.
      const blank = line === '' || line === '\r';
      if ((marker === ' ' || blank) && oldLeft > 0 && newLeft > 0) {
        hunk.lines.push({ kind: 'context', oldLine: oldLine++, newLine: newLine++, text: content });
        oldLeft -= 1;
        newLeft -= 1;
      } else if (marker === '-' && oldLeft > 0) {
        hunk.lines.push({ kind: 'removed', oldLine: oldLine++, newLine: null, text: content });
        oldLeft -= 1;
      } else if (marker === '+' && newLeft > 0) {
        hunk.lines.push({ kind: 'added', oldLine: null, newLine: newLine++, text: content });
        newLeft -= 1;
      } else {
        this.index -= 1;
        throw this.malformed('a line that does not fit the hunk header counts');
      }
    }
    hunk.text = this.lines.slice(headerIndex, this.index).join('\n');
    return hunk;
  }

  private newFile(oldPath: string | null, newPath: string | null): DiffFile {
    const file: DiffFile = {
      oldPath,
      newPath,
      status: 'modified',
      binary: false,
      oldMode: null,
      newMode: null,
      similarity: null,
      hunks: [],
    };
    this.files.push(file);
    return file;
  }

  private malformed(what: string): Error {
    return findingsError(
      'BAD_REQUEST',
      'diff_malformed',
      `The diff cannot be read: ${what} at line ${this.index + 1}.`,
      { line: this.index + 1 },
    );
  }
}
