import { GitRunner, splitNul } from '../git/git-runner.js';
import { isRelevantSource, type RuleCompat } from '../rules/relevant-source.js';
import { identifyTestFiles } from '../rules/test-files.js';
import { placeTestFiles, type TestFilePlacement } from '../rules/test-layout.js';

const DIFF = ['diff', '--no-color', '--no-ext-diff', '--no-textconv'] as const;

/** What the split needs: the repository (holding both commits) and the PR's facts. */
export interface PatchSplitInput {
  readonly git: GitRunner;
  /** The PR's `base.sha`; the split starts from its merge-base with the head. */
  readonly baseSha: string;
  readonly headSha: string;
  /** The PR's changed files as the API lists them (renames under their new name), in order. */
  readonly prFiles: readonly string[];
  readonly compat?: RuleCompat;
}

/** A test file extracted from the PR head. */
export interface ExtractedTestFile extends TestFilePlacement {
  readonly content: Buffer;
}

/** The reversed-baseline split of one PR. */
export interface PatchSplit {
  /** merge-base(base, head), or `base.sha` when git finds none. */
  readonly base: string;
  readonly head: string;
  /** `git diff --name-only base head` (renames under their new path). */
  readonly changedFiles: readonly string[];
  /** The relevant source files that `fix.patch` covers. */
  readonly sourceFiles: readonly string[];
  /** Test files of the PR that exist at head, with their bytes there. */
  readonly testFiles: readonly ExtractedTestFile[];
  /** head -> base over every file: applied at build time, it recreates the buggy state. */
  readonly bugPatch: Buffer;
  /** base -> head over the relevant source files only: the oracle's fix. */
  readonly fixPatch: Buffer;
}

/** merge-base of the PR's base and head, falling back to the base commit itself. */
export async function resolveBase(
  git: GitRunner,
  baseSha: string,
  headSha: string,
): Promise<string> {
  return git.text(['merge-base', baseSha, headSha]).catch(() => baseSha);
}

async function existingAtHead(
  git: GitRunner,
  head: string,
  paths: readonly string[],
): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const listed = await git.bytes(['ls-tree', '-r', '-z', '--name-only', head, '--', ...paths]);
  return new Set(splitNul(listed));
}

/**
 * Computes the split with git, byte for byte what `git diff` prints: `bug.patch` is
 * `git diff head base` (all files, tests included: test.sh copies the head's tests back at
 * verification), `fix.patch` is `git diff base head -- <relevant sources>` (a renamed source
 * shows as a new file, its old path being outside the pathspec), and each test file of the PR
 * that still exists at head is read from head. Deleted tests are dropped.
 */
export async function splitPatches(input: PatchSplitInput): Promise<PatchSplit> {
  const { git, headSha: head } = input;
  const base = await resolveBase(git, input.baseSha, head);
  const changedFiles = splitNul(await git.bytes(['diff', '--name-only', '-z', base, head]));
  const sourceFiles = changedFiles.filter((path) => isRelevantSource(path, input.compat));
  const fixPatch =
    sourceFiles.length === 0
      ? Buffer.alloc(0)
      : await git.bytes([...DIFF, base, head, '--', ...sourceFiles]);
  const bugPatch = await git.bytes([...DIFF, head, base]);
  const candidates = identifyTestFiles(input.prFiles);
  const present = await existingAtHead(git, head, candidates);
  const placements = placeTestFiles(candidates.filter((path) => present.has(path)));
  const testFiles: ExtractedTestFile[] = [];
  for (const placement of placements) {
    const content = await git.bytes(['cat-file', 'blob', `${head}:${placement.repoPath}`]);
    testFiles.push({ ...placement, content });
  }
  return { base, head, changedFiles, sourceFiles, testFiles, bugPatch, fixPatch };
}
