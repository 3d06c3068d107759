// The scale-out measure (tools/scale/run.mjs runs it): one process (--runInBand), no per-test
// timeout of its own (run.mjs bounds the whole run). Not a CI lane.
const { jestConfig } = require('../../jest.preset.cjs');

module.exports = {
  ...jestConfig(__dirname),
  displayName: 'scale',
  testMatch: ['<rootDir>/*.scale-spec.ts'],
  testTimeout: 60 * 60_000,
  globals: {
    caravelChaosRun: process.env.CARAVEL_CHAOS_RUN ?? '',
    caravelScaleOptions: process.env.CARAVEL_SCALE_OPTIONS ?? '',
  },
};
