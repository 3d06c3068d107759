// The scenario harness's own unit tests (its sandbox gate).
module.exports = {
  ...require('../../jest.preset.cjs').jestConfig(__dirname),
  displayName: 'platform-scenarios',
};
