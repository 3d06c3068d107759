import { sandboxError } from '../sandbox.errors.js';
import type { GrepMatch, GrepOptions, GrepResult } from '../sandbox.types.js';
import { globToRegExp } from './glob-pattern.js';
import { walkTree } from './tree-walker.js';
import type { WorkdirFs } from './workdir-fs.js';
import type { ResolvedPath } from './workdir-paths.js';

const MAX_GREP_FILE_BYTES = 4 * 1024 * 1024;
const BINARY_PROBE_BYTES = 8000;
const MAX_LINE_CHARS = 500;

function compile(pattern: string, options: GrepOptions): RegExp {
  if (typeof pattern !== 'string' || pattern.length === 0) {
    throw sandboxError('invalid_input', 'a grep pattern must be a non-empty string');
  }
  const source = options.regex ? pattern : pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  try {
    return new RegExp(source, options.ignoreCase ? 'i' : '');
  } catch (error) {
    throw sandboxError('invalid_input', `invalid regular expression: ${(error as Error).message}`);
  }
}

/** Text lines of a file, or undefined when it is too large or looks binary. */
async function textLines(fs: WorkdirFs, path: string, size: number): Promise<string[] | undefined> {
  if (size > MAX_GREP_FILE_BYTES) return undefined;
  const bytes = await fs.readFile(path, MAX_GREP_FILE_BYTES).catch((error: unknown) => {
    // A file that changed under the search (grown, replaced, gone) is skipped, not an error.
    if (['EFBIG', 'EISDIR', 'ENOENT'].includes((error as NodeJS.ErrnoException).code ?? ''))
      return undefined;
    throw error;
  });
  if (!bytes || bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return undefined;
  return bytes.toString('utf8').split('\n');
}

/** Searches one file or a tree (symlinks not followed, binary and huge files skipped). */
export async function grepTree(
  fs: WorkdirFs,
  start: ResolvedPath,
  pattern: string,
  options: GrepOptions & { maxVisited: number },
): Promise<GrepResult> {
  const regex = compile(pattern, options);
  const include = options.include ? globToRegExp(options.include) : undefined;
  const max = options.maxMatches ?? 200;
  const matches: GrepMatch[] = [];
  const info = await fs.stat(start.hostPath);
  const files =
    info.type === 'file'
      ? [{ relative: start.relative, hostPath: start.hostPath, size: info.size }]
      : walkFiles(fs, start, options.maxVisited);
  for await (const file of files) {
    if (include && !include.test(file.relative)) continue;
    const lines = await textLines(fs, file.hostPath, file.size);
    for (const [index, text] of (lines ?? []).entries()) {
      if (!regex.test(text)) continue;
      if (matches.length === max) return { matches, truncated: true };
      matches.push({ path: file.relative, line: index + 1, text: text.slice(0, MAX_LINE_CHARS) });
    }
  }
  return { matches, truncated: false };
}

async function* walkFiles(fs: WorkdirFs, start: ResolvedPath, maxVisited: number) {
  const walk = { recursive: true, maxVisited };
  for await (const walked of walkTree(fs, start.hostPath, start.relative, walk)) {
    if (walked.entry.type === 'file') {
      yield { relative: walked.relative, hostPath: walked.hostPath, size: walked.entry.size };
    }
  }
}
