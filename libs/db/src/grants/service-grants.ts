import { AppError } from '@caravel/errors';
import { sql } from 'kysely';
import type { Database } from '../connection/database.types.js';
import { absentTables } from '../migrations/absent-tables.js';
import { SERVICE_TABLES, type ServiceName } from './service-tables.js';
import type { TableUse } from './service-tables.types.js';

/** The services `caravel db grants` makes a role for, in the map's order. */
export const GRANT_SERVICES = Object.keys(SERVICE_TABLES) as ServiceName[];

/** Whether `name` is a service with a role. */
export function isGrantService(name: string): name is ServiceName {
  return Object.hasOwn(SERVICE_TABLES, name);
}

/** The PostgreSQL role of a service: `caravel_` and its name, `-` as `_` (`caravel_agent_runner`). */
export function serviceRole(service: ServiceName): string {
  return `caravel_${service.replace(/-/g, '_')}`;
}

const list = (tables: readonly string[]) => tables.map((table) => `"${table}"`).join(', ');

/**
 * The SQL that gives a service's role exactly its tables, idempotent (run it after every
 * `caravel db migrate`: a new table reaches a service only through it):
 * the role is created (LOGIN, no password: the operator sets one, `ALTER ROLE … PASSWORD`, or
 * authenticates it otherwise) unless it exists; everything it held on the schema's tables and
 * sequences is revoked, and so is CREATE on the schema; then SELECT, INSERT, UPDATE, DELETE on
 * the tables it writes (and USAGE on their sequences), SELECT on those it only reads. Nothing
 * else: no DDL, no TRUNCATE, no other table. Tables are taken in the owner's current schema.
 */
export function serviceGrantSql(
  service: ServiceName,
  use: TableUse = SERVICE_TABLES[service],
): string {
  const role = serviceRole(service);
  const lines = [
    `-- ${role}: the ${service}'s tables (libs/db/src/grants/service-tables.ts)`,
    `DO $$ BEGIN`,
    `  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN`,
    // Another grants run (on another database of the server) may create it at the same moment.
    `    BEGIN CREATE ROLE ${role} LOGIN;`,
    `    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;`,
    `  END IF;`,
    `  EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM ${role}', current_schema());`,
    `  EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I FROM ${role}', current_schema());`,
    `  EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM ${role}', current_schema());`,
    `  EXECUTE format('GRANT USAGE ON SCHEMA %I TO ${role}', current_schema());`,
    `END $$;`,
  ];
  if (use.writes.length > 0) {
    lines.push(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE ${list(use.writes)} TO ${role};`,
      `DO $$ DECLARE owned record; BEGIN`,
      `  FOR owned IN SELECT DISTINCT s.oid::regclass AS name FROM pg_depend d`,
      `    JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'`,
      `    WHERE d.refobjid = ANY (ARRAY[${use.writes.map((t) => `'"${t}"'::regclass`).join(', ')}])`,
      `  LOOP`,
      `    EXECUTE format('GRANT USAGE, SELECT ON SEQUENCE %s TO ${role}', owned.name);`,
      `  END LOOP;`,
      `END $$;`,
    );
  }
  if (use.reads.length > 0) lines.push(`GRANT SELECT ON TABLE ${list(use.reads)} TO ${role};`);
  return `${lines.join('\n')}\n`;
}

/** The whole script for some services (default all), in one transaction. */
export function grantsScript(services: readonly ServiceName[] = GRANT_SERVICES): string {
  return `BEGIN;\n${services.map((service) => serviceGrantSql(service)).join('\n')}COMMIT;\n`;
}

/** The tables of these services' grants that the database lacks (not migrated yet). */
function missingTables(database: Database, services: readonly ServiceName[]) {
  const wanted = [
    ...new Set(services.flatMap((s) => [...SERVICE_TABLES[s].writes, ...SERVICE_TABLES[s].reads])),
  ];
  return absentTables(database, wanted);
}

/**
 * Applies {@link grantsScript} (one transaction) with the owner's connection. Refuses PGlite,
 * which has one user and no roles, and a database that lacks a table of the grants (run
 * `caravel db migrate` first).
 */
export async function applyServiceGrants(
  database: Database,
  services: readonly ServiceName[] = GRANT_SERVICES,
): Promise<void> {
  if (database.kind === 'pglite')
    throw new AppError(
      'PRECONDITION_FAILED',
      'The embedded database (PGlite) has one user and no roles: per-service grants are for ' +
        'PostgreSQL (--database-url postgres://…). The embedded host needs none: it is one process.',
    );
  const missing = await missingTables(database, services);
  if (missing.length > 0)
    throw new AppError(
      'PRECONDITION_FAILED',
      `The database lacks ${missing.join(', ')}: run \`caravel db migrate\` first, then grant.`,
      { details: { missing } },
    );
  await database.transaction((trx) =>
    sql.raw(services.map((service) => serviceGrantSql(service)).join('\n')).execute(trx),
  );
}
