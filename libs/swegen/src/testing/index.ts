// Test support for the task pipeline: `@caravel/swegen/testing`, for specs, end-to-end tests and
// benchmarks only (production code may not import it: eslint.config.js). Repositories built by
// the test (a JavaScript bug fix, a farm of merged PRs, a dataset repository), their model
// scripts, and a stand-in `harbor` executable.
export { FixtureRepo, type FixtureChanges } from './fixture-repo.js';
export { buildJsBugFixFixture, type JsBugFixFixture } from './js-fixture.js';
export { jsFixtureModelScript } from './js-fixture-script.js';
export {
  installFakeHarbor,
  type FakeHarbor,
  type FakeHarborLayout,
  type FakeHarborPlan,
} from './fake-harbor.js';
export {
  buildDatasetRepo,
  buildFarmFixture,
  evaluationResponses,
  farmModelScript,
  type FarmFixture,
  type FarmFixturePr,
  type FarmFixturePull,
} from './farm-fixture.js';
