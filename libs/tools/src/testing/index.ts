// Test support for the agent's tools: `@caravel/tools/testing`, for specs and benchmarks only
// (production code may not import it: eslint.config.js).
// A tool sandbox over a plain directory on the host: no isolation, no broker.
export { DirectoryToolSandbox } from './directory-tool-sandbox.js';
// A pull request as the SCM's read side returns it.
export { aPullRequest } from './pull-request.factory.js';
