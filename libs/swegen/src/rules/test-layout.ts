import { stripTestsPrefix } from './test-files.js';

/** One test file as the task carries it. */
export interface TestFilePlacement {
  /** Where it lives in the repository (and where test.sh copies it back to). */
  readonly repoPath: string;
  /** Where it lives under the task's `tests/` directory. */
  readonly taskPath: string;
}

/**
 * Places each test file under the task's `tests/`, in the given order, with its leading test
 * directory stripped (`test/util.js` -> `util.js`). Where stripping would collide with another
 * file or with the harness's own `test.sh`, the full repository path is kept instead, so no test
 * file overwrites another or the harness.
 */
export function placeTestFiles(repoPaths: readonly string[]): TestFilePlacement[] {
  const used = new Set<string>(['test.sh']);
  const placed: TestFilePlacement[] = [];
  for (const repoPath of repoPaths) {
    const stripped = stripTestsPrefix(repoPath);
    const taskPath = used.has(stripped) ? repoPath : stripped;
    used.add(taskPath);
    placed.push({ repoPath, taskPath });
  }
  return placed;
}
