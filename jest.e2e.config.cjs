// End-to-end tests: the whole platform, in-process (embedded) and as separate processes.
const { jestConfig } = require('./jest.preset.cjs');

const base = jestConfig(__dirname);
module.exports = {
  ...base,
  displayName: 'e2e',
  testMatch: ['<rootDir>/e2e/**/*.e2e-spec.ts'],
  testTimeout: 180_000,
};
