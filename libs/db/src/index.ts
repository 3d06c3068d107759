// Connections
export { openDatabase, type OpenDatabaseOptions } from './connection/open-database.js';
export type { Database, DatabaseLogger } from './connection/database.types.js';
export { parseDatabaseUrl, redactUrl, type DatabaseLocation } from './connection/database-url.js';
export { isUniqueViolation } from './connection/database-errors.js';
export { toJson } from './connection/json.js';

// Migrations
export { migrate, type MigrateOptions, type MigrateResult } from './migrations/migration-runner.js';
export { defaultMigrationsDir } from './migrations/migrations-dir.js';

// Schema types (generated from prisma/schema.prisma)
export type * from './generated/types.js';

// Embedded bus tables and leases (repositories used by @caravel/messaging's embedded adapter)
export * from './bus/index.js';
