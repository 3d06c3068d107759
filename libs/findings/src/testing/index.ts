// Test support for the findings model: `@caravel/findings/testing`, for specs only (production
// code may not import it: eslint.config.js).
export { aFinding, sha, T0 } from './finding.factory.js';
export { PR_DIFF, PR_LINES } from './diffs.js';
export { createGitRepo, type GitRepo } from './git-repo.js';
