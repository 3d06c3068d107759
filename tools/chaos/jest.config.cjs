// The chaos suite (tools/chaos/run.mjs runs it): one profile per spec file, one process
// (--runInBand), no per-test timeout of its own (run.mjs bounds the whole run).
const { jestConfig } = require('../../jest.preset.cjs');

module.exports = {
  ...jestConfig(__dirname),
  displayName: 'chaos',
  testMatch: ['<rootDir>/*.chaos-spec.ts'],
  testTimeout: 30 * 60_000,
  globals: { caravelChaosRun: process.env.CARAVEL_CHAOS_RUN ?? '' },
};
