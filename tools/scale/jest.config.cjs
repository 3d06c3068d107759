// The scale-out tool's unit tests (its report's maths and options); the measure itself runs
// through tools/scale/run.mjs (jest.scale.config.cjs).
module.exports = {
  ...require('../../jest.preset.cjs').jestConfig(__dirname),
  testMatch: ['<rootDir>/*.spec.ts'],
};
