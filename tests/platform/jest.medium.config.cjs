// Whole-platform scenarios: every service in this process on each pair (embedded bus + PGlite,
// NATS JetStream + PostgreSQL), driven through signed triggers and fake providers.
module.exports = {
  ...require('../../jest.preset.cjs').jestConfig(__dirname, 'medium'),
  displayName: 'platform-scenarios:medium',
};
