module.exports = {
  ...require('../../jest.preset.cjs').jestConfig(__dirname),
  testTimeout: 120_000,
};
