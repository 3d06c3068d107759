/**
 * Test-file detection for PR-derived tasks. A path is a test when it lives in a test directory or
 * its file name follows a per-language test naming convention. Paths are compared lowercased.
 */

const TEST_DIRS = ['tests/', 'test/', '__tests__/', 'spec/'] as const;
const JS_TEST = /\.(test|spec)\.(js|ts|jsx|tsx|mjs|cjs)$/;

/** True when `dir/` starts the path or follows a `/` in it (so nested test directories count). */
function containsDir(path: string, dir: string): boolean {
  return path.startsWith(dir) || path.includes(`/${dir}`);
}

/** True when the lowercased path is under `tests/`, `test/`, `__tests__/`, `spec/` or `src/test/`. */
export function isUnderTestDirectory(path: string): boolean {
  const lower = path.toLowerCase();
  return TEST_DIRS.some((dir) => containsDir(lower, dir)) || containsDir(lower, 'src/test/');
}

function baseName(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? path : path.slice(slash + 1);
}

/** Naming conventions shared by test detection and the (narrower) source exclusion. */
export function hasTestFileName(name: string, options: { prefixRules: boolean }): boolean {
  const n = name.toLowerCase();
  const conventions: boolean[] = [
    /^test_.*\.py$/.test(n) || /_test\.py$/.test(n),
    JS_TEST.test(n),
    /_test\.go$/.test(n),
    /_test\.rs$/.test(n) || n === 'tests.rs',
    /(_spec|_test)\.rb$/.test(n) || /^test_.*\.rb$/.test(n),
    /(test|tests)\.(java|kt)$/.test(n),
    /_test\.(cpp|cc|c)$/.test(n) || /^test_.*\.(cpp|cc|c)$/.test(n),
    /test\.php$/.test(n),
    /(tests|test)\.cs$/.test(n),
  ];
  if (options.prefixRules) conventions.push(/^test.*\.(java|kt|php)$/.test(n));
  return conventions.some(Boolean);
}

/**
 * Whether a repository path is a test file: under a test directory (`tests/`, `test/`,
 * `__tests__/`, `spec/`, `src/test/` anywhere in the path, so fixtures and snapshots in them
 * count), or named like a test in Python, JS/TS, Go, Rust, Ruby, Java/Kotlin, C/C++, PHP or C#.
 * `testdata/`, `e2e/`, `fixtures/` and `__mocks__/` alone do not make a test.
 */
export function isTestFile(path: string): boolean {
  return isUnderTestDirectory(path) || hasTestFileName(baseName(path), { prefixRules: true });
}

/**
 * Where a test file goes under the task's `tests/`: a leading `tests/`, `test/`, `__tests__/` or
 * `spec/` component (any case) is dropped, or a leading `src/test/`; other paths are kept.
 */
export function stripTestsPrefix(path: string): string {
  const parts = path.split('/');
  const first = (parts[0] ?? '').toLowerCase();
  if (parts.length > 2 && first === 'src' && parts[1]?.toLowerCase() === 'test') {
    return parts.slice(2).join('/');
  }
  if (parts.length > 1 && ['tests', 'test', '__tests__', 'spec'].includes(first)) {
    return parts.slice(1).join('/');
  }
  return path;
}

/** The test files of a PR's file list, in the list's order (renames judged by the new name). */
export function identifyTestFiles(paths: readonly string[]): string[] {
  return paths.filter(isTestFile);
}
