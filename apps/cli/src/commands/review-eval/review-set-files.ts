import { AppError } from '@caravel/errors';
import { parseReviewSet, type ReviewCase, type ReviewSet } from '@caravel/evals';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';

/** The file a labelled set's folder holds. */
export const REVIEW_SET_FILE = 'review-set.json';

/** A case ready to check out: its repository a path or URL git reads, its patch's text. */
export interface LoadedCase extends Omit<ReviewCase, 'patch'> {
  /** The unified diff applied on the base to make the head (instead of `head`). */
  patch?: string;
}

/** A labelled set read from disk. */
export interface LoadedSet extends Omit<ReviewSet, 'cases'> {
  file: string;
  cases: LoadedCase[];
}

/** A git URL (`https://…`, `ssh://…`, `git@host:…`, `file://…`) rather than a path. */
function isUrl(repository: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(repository) || /^[^/\s]+@[^/\s]+:/.test(repository);
}

const kindOf = (path: string) =>
  stat(path).then(
    (s) => (s.isDirectory() ? 'directory' : s.isFile() ? 'file' : 'other'),
    () => 'missing' as const,
  );

/** A set's name from its folder or file name, made fit for a folder name. */
function nameFrom(file: string): string {
  const base =
    basename(file) === REVIEW_SET_FILE ? basename(dirname(file)) : basename(file, '.json');
  const name = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return name.slice(0, 80) || 'review-set';
}

async function settleCase(c: ReviewCase, index: number, root: string, file: string) {
  const where = `${file}: cases.${index}`;
  let repository = c.repository;
  if (!isUrl(repository)) {
    repository = isAbsolute(repository) ? repository : resolve(root, repository);
    if ((await kindOf(repository)) !== 'directory')
      throw new AppError('BAD_REQUEST', `${where}.repository: ${c.repository}: no such directory`);
  }
  const { patch: patchFile, ...rest } = c;
  if (patchFile === undefined) return { ...rest, repository };
  const path = isAbsolute(patchFile) ? patchFile : resolve(root, patchFile);
  const patch = await readFile(path, 'utf8').catch(() => {
    throw new AppError('BAD_REQUEST', `${where}.patch: ${patchFile}: no such file`);
  });
  if (!patch.trim()) throw new AppError('BAD_REQUEST', `${where}.patch: ${patchFile} is empty`);
  return { ...rest, repository, patch };
}

/** How long one read of a published set (its JSON, a patch) may take. */
const FETCH_TIMEOUT_MS = 60_000;

/** The text at `url`, or a `BAD_REQUEST` naming it and what went wrong. */
async function fetchText(url: URL, what: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }).catch(
    (error: unknown) => {
      throw new AppError('BAD_REQUEST', `${what}: ${url.href}: ${(error as Error).message}`);
    },
  );
  if (!response.ok)
    throw new AppError('BAD_REQUEST', `${what}: ${url.href}: HTTP ${response.status}`);
  return response.text();
}

/**
 * A labelled set published on the web (a benchmark's, read at run time and never stored): the
 * JSON at `url`, each case's patch read relative to it; its repositories must be URLs git clones,
 * since there is no folder for a path to be relative to.
 */
async function fetchReviewSet(url: URL): Promise<LoadedSet> {
  let raw: unknown;
  const text = await fetchText(url, 'labelled set');
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new AppError('BAD_REQUEST', `${url.href}: not JSON (${(error as Error).message})`);
  }
  const name = nameFrom(decodeURIComponent(url.pathname.split('/').pop() || 'review-set'));
  const set = parseReviewSet(raw, url.href, name);
  const cases: LoadedCase[] = [];
  for (const [i, c] of set.cases.entries()) {
    const where = `${url.href}: cases.${i}`;
    if (!isUrl(c.repository))
      throw new AppError(
        'BAD_REQUEST',
        `${where}.repository: ${c.repository}: a set read from a URL names its repositories by URL`,
      );
    const { patch: patchFile, ...rest } = c;
    if (patchFile === undefined) {
      cases.push(rest);
      continue;
    }
    const patch = await fetchText(new URL(patchFile, url), `${where}.patch`);
    if (!patch.trim()) throw new AppError('BAD_REQUEST', `${where}.patch: ${patchFile} is empty`);
    cases.push({ ...rest, patch });
  }
  return { name: set.name, file: url.href, cases };
}

/**
 * Reads a labelled set: a folder holding `review-set.json`, the JSON file itself, or an
 * `http(s)://` URL of one. Each case's repository (a path relative to the set's file, or a URL)
 * and patch (a path relative to it) are settled; a missing file or folder, an unreadable URL,
 * bad JSON or a bad field is a `BAD_REQUEST` in one line.
 */
export async function readReviewSet(path: string): Promise<LoadedSet> {
  if (/^https?:\/\//i.test(path)) return fetchReviewSet(new URL(path));
  const kind = await kindOf(path);
  if (kind === 'missing') throw new AppError('BAD_REQUEST', `${path}: no such file or folder`);
  const file = kind === 'directory' ? join(path, REVIEW_SET_FILE) : path;
  if (kind === 'directory' && (await kindOf(file)) !== 'file')
    throw new AppError('BAD_REQUEST', `${path}: a labelled set's folder holds ${REVIEW_SET_FILE}`);
  if (kind === 'file' && extname(file) !== '.json')
    throw new AppError('BAD_REQUEST', `${path}: a labelled set is a folder or a .json file`);
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new AppError('BAD_REQUEST', `${file}: not JSON (${(error as Error).message})`);
  }
  const set = parseReviewSet(raw, file, nameFrom(file));
  const root = dirname(resolve(file));
  const cases: LoadedCase[] = [];
  for (const [i, c] of set.cases.entries()) cases.push(await settleCase(c, i, root, file));
  return { name: set.name, file, cases };
}
