import { open, stat } from 'node:fs/promises';
import { sandboxError } from '../sandbox.errors.js';
import type { GrepMatch, GrepOptions, GrepResult } from '../sandbox.types.js';
import { globToRegExp } from './glob-pattern.js';
import { walkTree } from './tree-walker.js';
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
async function textLines(hostPath: string): Promise<string[] | undefined> {
  const info = await stat(hostPath);
  if (info.size > MAX_GREP_FILE_BYTES) return undefined;
  const handle = await open(hostPath, 'r');
  try {
    const bytes = await handle.readFile();
    if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return undefined;
    return bytes.toString('utf8').split('\n');
  } finally {
    await handle.close();
  }
}

/** Searches one file or a tree (symlinks not followed, binary and huge files skipped). */
export async function grepTree(
  start: ResolvedPath,
  pattern: string,
  options: GrepOptions & { maxVisited: number },
): Promise<GrepResult> {
  const regex = compile(pattern, options);
  const include = options.include ? globToRegExp(options.include) : undefined;
  const max = options.maxMatches ?? 200;
  const matches: GrepMatch[] = [];
  const files = (await stat(start.hostPath)).isFile()
    ? [{ relative: start.relative, hostPath: start.hostPath }]
    : walkFiles(start, options.maxVisited);
  for await (const file of files) {
    if (include && !include.test(file.relative)) continue;
    const lines = await textLines(file.hostPath);
    for (const [index, text] of (lines ?? []).entries()) {
      if (!regex.test(text)) continue;
      if (matches.length === max) return { matches, truncated: true };
      matches.push({ path: file.relative, line: index + 1, text: text.slice(0, MAX_LINE_CHARS) });
    }
  }
  return { matches, truncated: false };
}

async function* walkFiles(start: ResolvedPath, maxVisited: number) {
  for await (const entry of walkTree(start.hostPath, start.relative, {
    recursive: true,
    maxVisited,
  })) {
    if (entry.dirent.isFile()) yield entry;
  }
}
