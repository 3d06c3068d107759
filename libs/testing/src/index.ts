export { testEnvironment, type TestEnvironment } from './test-environment.js';
export { serviceGate, type ServiceGate, type RequiredService } from './service-gate.js';
export {
  testDatabaseTargets,
  describeEachDatabase,
  createTestPostgresDatabase,
  type TestDatabaseTarget,
  type ClosableDatabase,
  type DatabaseOpener,
  type TestPostgresDatabase,
} from './database.js';
