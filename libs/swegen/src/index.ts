export {
  hasTestFileName,
  identifyTestFiles,
  isTestFile,
  isUnderTestDirectory,
  stripTestsPrefix,
} from './rules/test-files.js';
export { placeTestFiles, type TestFilePlacement } from './rules/test-layout.js';
export {
  DEFAULT_SUBSTANTIALITY,
  SWEGEN_FILE_LIST_CAP,
  checkSubstantiality,
  isRelevantSource,
  type RuleCompat,
  type SubstantialityRule,
  type SubstantialityVerdict,
} from './rules/relevant-source.js';
export { extractIssueRefs, normalizeRepo, type IssueRef } from './rules/linked-issues.js';
export { dedupeKeyFor, isRepoName, taskIdFor } from './rules/task-id.js';
export {
  SWEGEN_ERROR_REASONS,
  SWEGEN_EXIT_CODES,
  swegenError,
  swegenErrorReason,
  swegenExitCode,
  type SwegenErrorReason,
} from './errors/swegen-errors.js';
export { GitRunner, splitNul } from './git/git-runner.js';
export {
  resolveBase,
  splitPatches,
  type ExtractedTestFile,
  type PatchSplit,
  type PatchSplitInput,
} from './create/patch-split.js';
export { FixtureRepo, type FixtureChanges } from './testing/fixture-repo.js';
