import { AppError } from '@caravel/errors';

import { matchesGlob } from '../core/glob-pattern.js';
import type { PullRequestDetails, ScmChangedFile } from '../ports/scm.port.js';
import type * as Port from '../ports/tool-sandbox.port.js';
import { DIFF_FILE, diffPathOf, fileDiff, wholeDiff } from './pull-request-diff.js';

/** Reads a file of the repository at a commit (GitHub's contents API behind it). */
export interface ScmFileReadPort {
  /** The file's text at `ref`; `NOT_FOUND` when it has no such file there. */
  readFileAt(path: string, ref: string): Promise<string>;
}

/** The pull request's description, and its open findings when a review ledger has some. */
export const DESCRIPTION_FILE = 'PULL_REQUEST.md';
export const FINDINGS_FILE = 'FINDINGS.md';
/** Where each changed file is served, at the pull request's head: `files/<path>`. */
export const FILES_DIR = 'files';

/** What the virtual files are made of. */
export interface PullRequestFilesInput {
  pull: PullRequestDetails;
  files: readonly ScmChangedFile[];
  /** `PULL_REQUEST.md`: the facts and the author's title and body (wrapped as untrusted). */
  description: string;
  /** `FINDINGS.md`: the review ledger's open findings, rendered; absent without any. */
  findings?: string | null;
  reader: ScmFileReadPort;
  /** Characters of the whole diff `DIFF.patch` holds (default {@link DEFAULT_MAX_DIFF_CHARS}). */
  maxDiffChars?: number;
}

/** Files under `files/` one `grep` reads from GitHub at most (each is a call). */
const MAX_GREP_FETCHES = 60;

const refusal = (what: string) =>
  new AppError('FORBIDDEN', `${what}: these files are read-only (a pull request's, at its head).`);

/**
 * A pull request as read-only virtual files, for the chat agent's ordinary read, list, glob and
 * grep tools: `PULL_REQUEST.md`, `DIFF.patch` (cut with a pointer when huge), `diffs/<path>.patch`
 * per changed file, `files/<path>` (the file at the head, read from GitHub when first asked) and
 * `FINDINGS.md`. Nothing is written anywhere (like the analyzer's skills, they live in the
 * process); a path the pull request does not change is refused with what can be read instead.
 */
export class PullRequestFiles implements Port.ToolSandbox {
  private readonly fixed = new Map<string, string>();
  private readonly changed = new Map<string, ScmChangedFile>();
  private readonly atHead = new Map<string, Promise<string>>();

  constructor(private readonly input: PullRequestFilesInput) {
    this.fixed.set(DESCRIPTION_FILE, input.description);
    this.fixed.set(DIFF_FILE, wholeDiff(input.files, input.maxDiffChars));
    if (input.findings) this.fixed.set(FINDINGS_FILE, input.findings);
    for (const file of input.files) {
      this.changed.set(file.path, file);
      this.fixed.set(diffPathOf(file.path), fileDiff(file));
    }
  }

  /** Every virtual file's path, sorted (`files/` only for files the head still has). */
  paths(): string[] {
    const atHead = [...this.changed.values()]
      .filter((file) => file.status !== 'removed')
      .map((file) => `${FILES_DIR}/${file.path}`);
    return [...this.fixed.keys(), ...atHead].sort();
  }

  async readFile(path: string): Promise<string> {
    const at = normalise(path);
    const fixed = this.fixed.get(at);
    if (fixed !== undefined) return fixed;
    const repoPath = at.startsWith(`${FILES_DIR}/`) ? at.slice(FILES_DIR.length + 1) : at;
    const file = this.changed.get(repoPath);
    if (file?.status === 'removed') {
      throw new AppError(
        'NOT_FOUND',
        `${repoPath} was deleted by this pull request; what it held is in ${diffPathOf(repoPath)}.`,
      );
    }
    if (file) return this.readAtHead(repoPath);
    if (this.isDirectory(at)) throw new AppError('BAD_REQUEST', `${path} is a directory.`);
    throw new AppError('NOT_FOUND', this.outside(path));
  }

  listFiles(path: string): Promise<Port.FileEntry[]> {
    return Promise.resolve().then(() => this.entriesOf(path));
  }

  private entriesOf(path: string): Port.FileEntry[] {
    const at = normalise(path);
    if (!this.isDirectory(at)) {
      if (this.paths().includes(at))
        throw new AppError('BAD_REQUEST', `${path} is not a directory.`);
      throw new AppError('NOT_FOUND', this.outside(path));
    }
    const prefix = at === '' ? '' : `${at}/`;
    const entries = new Map<string, Port.FileEntry>();
    for (const full of this.paths().filter((p) => p.startsWith(prefix))) {
      const [name = '', ...deeper] = full.slice(prefix.length).split('/');
      entries.set(name, deeper.length > 0 ? { name, type: 'directory' } : { name, type: 'file' });
    }
    return [...entries.values()];
  }

  glob(request: Port.GlobRequest): Promise<Port.GlobResult> {
    const prefix = directoryPrefix(request.path);
    const matches = this.paths()
      .filter((p) => p.startsWith(prefix))
      .map((p) => p.slice(prefix.length))
      .filter((p) => matchesGlob(p, request.pattern));
    const paths = matches.slice(0, request.maxResults);
    return Promise.resolve({ paths, truncated: matches.length > paths.length });
  }

  async grep(request: Port.GrepRequest): Promise<Port.GrepResult> {
    const pattern = patternOf(request);
    const at = normalise(request.path ?? '');
    // The whole diff repeats the per-file diffs: searched only when asked for by name.
    const searched = this.paths().filter((p) =>
      at === '' ? p !== DIFF_FILE : p === at || p.startsWith(`${at}/`),
    );
    if (searched.length === 0) throw new AppError('NOT_FOUND', this.outside(request.path ?? at));
    const matches: Port.GrepMatch[] = [];
    let fetched = 0;
    for (const path of searched) {
      if (request.include && !matchesGlob(path, request.include)) continue;
      if (path.startsWith(`${FILES_DIR}/`) && ++fetched > MAX_GREP_FETCHES) {
        return { matches, truncated: true };
      }
      const lines = (await this.readFile(path)).split('\n');
      for (const [index, text] of lines.entries()) {
        if (!pattern.test(text)) continue;
        if (matches.length >= request.maxMatches) return { matches, truncated: true };
        matches.push({ path, line: index + 1, text });
      }
    }
    return { matches, truncated: false };
  }

  diff(): Promise<string> {
    return Promise.resolve('');
  }

  exec(): Promise<Port.ExecResult> {
    return Promise.reject(refusal('No command can run here'));
  }

  writeFile(path: string): Promise<Port.WriteOutcome> {
    return Promise.reject(refusal(`${path} cannot be written`));
  }

  editFile(request: { path: string }): Promise<Port.EditOutcome> {
    return Promise.reject(refusal(`${request.path} cannot be edited`));
  }

  private readAtHead(repoPath: string): Promise<string> {
    let reading = this.atHead.get(repoPath);
    if (!reading) {
      reading = this.input.reader.readFileAt(repoPath, this.input.pull.head.sha);
      // A failed read is not kept: the next call asks GitHub again.
      void reading.catch(() => this.atHead.delete(repoPath));
      this.atHead.set(repoPath, reading);
    }
    return reading;
  }

  private isDirectory(at: string): boolean {
    return at === '' || this.paths().some((p) => p.startsWith(`${at}/`));
  }

  /** What a model told "no such file" needs: why, and what it can read instead. */
  private outside(path: string): string {
    const first = this.paths().find((p) => p.startsWith(`${FILES_DIR}/`));
    return (
      `${path} is not part of pull request #${this.input.pull.number}: only what it changes can ` +
      `be read here. The files are ${DESCRIPTION_FILE}, ${DIFF_FILE}, diffs/<path>.patch and ` +
      `${FILES_DIR}/<path> for its ${this.changed.size} changed files` +
      `${first ? ` (e.g. ${first})` : ''}; ls lists them. If the answer needs ${path}, say that ` +
      'you could not see it.'
    );
  }
}

/** A path as the virtual files name it: no leading `/` or `./`, no trailing `/`. */
function normalise(path: string): string {
  const trimmed = path
    .trim()
    .replace(/^(\.?\/)+/, '')
    .replace(/\/+$/, '');
  return trimmed === '.' ? '' : trimmed;
}

const directoryPrefix = (path: string | undefined): string => {
  const at = normalise(path ?? '');
  return at === '' ? '' : `${at}/`;
};

function patternOf(request: Port.GrepRequest): RegExp {
  const source = request.regex
    ? request.pattern
    : request.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  try {
    return new RegExp(source, request.ignoreCase ? 'i' : '');
  } catch {
    throw new AppError('BAD_REQUEST', `${request.pattern} is not a valid regular expression.`);
  }
}
