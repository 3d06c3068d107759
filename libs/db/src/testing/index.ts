// Test support for the rows this library's repositories return: `@caravel/db/testing`, for specs
// only (production code may not import it: eslint.config.js).
export { factory, FACTORY_TIME } from './row-factory.js';
export { seedRun, type SeededCall, type SeededRun } from './ops-seed.js';
export { countingStatements } from './statement-counter.js';
