#!/usr/bin/env node
// Schema-first database tooling for @caravel/db (see docs/db.md):
//   node tools/codegen/db.mjs migrate <name> [--replace]   new migration from the schema (+ types)
//   node tools/codegen/db.mjs migrate <name> --empty       an empty one, for SQL the schema cannot
//                                                          express (CHECK constraints, data checks)
//   node tools/codegen/db.mjs generate                     Kysely types from the schema
//   node tools/codegen/db.mjs check                        drift check for CI (exit 1 on drift)
// The schema engine needs a PostgreSQL server for its shadow database; it gets a throwaway one on
// CARAVEL_CODEGEN_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderKyselyTypes } from './db/kysely-types.mjs';
import {
  assertMigrationName,
  hasLockFile,
  migrationNames,
  migrationsList,
  removeMigrations,
  writeMigration,
} from './db/migrations-folder.mjs';
import { isEmptyScript, openSchemaEngine } from './db/schema-engine.mjs';
import { DEFAULT_SERVER_URL, withThrowawayDatabase } from './db/throwaway-database.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const packageDir = join(root, 'libs', 'db');
const schemaPath = join(packageDir, 'prisma', 'schema.prisma');
const migrationsDir = join(packageDir, 'prisma', 'migrations');
const typesDir = join(packageDir, 'src', 'generated');
const serverUrl = process.env.CARAVEL_CODEGEN_DATABASE_URL ?? DEFAULT_SERVER_URL;

const rel = (path) => relative(root, path);

/** SQL that brings the committed migrations (or nothing, when `fromEmpty`) up to the schema. */
async function pendingSql({ fromEmpty }) {
  const schema = readFileSync(schemaPath, 'utf8');
  return withThrowawayDatabase(serverUrl, async (connectionString) => {
    const engine = await openSchemaEngine({ schema, connectionString });
    try {
      return await engine.diffToSchema(fromEmpty ? null : migrationsList(migrationsDir));
    } finally {
      engine.close();
    }
  });
}

/**
 * How the generated files differ from what the schema renders: the files to write (new or
 * changed) and the stale ones to remove (a .ts file the generator no longer writes).
 */
function typesDrift() {
  const rendered = renderKyselyTypes({ packageDir, schemaPath });
  const onDisk = existsSync(typesDir)
    ? readdirSync(typesDir).filter((name) => name.endsWith('.ts'))
    : [];
  const changed = [...rendered].filter(([name, content]) => {
    const path = join(typesDir, name);
    return !existsSync(path) || readFileSync(path, 'utf8') !== content;
  });
  return { changed, stale: onDisk.filter((name) => !rendered.has(name)) };
}

function generate() {
  const { changed, stale } = typesDrift();
  if (changed.length === 0 && stale.length === 0) {
    console.log(`${rel(typesDir)} is up to date`);
    return;
  }
  mkdirSync(typesDir, { recursive: true });
  for (const [name, content] of changed) {
    writeFileSync(join(typesDir, name), content);
    console.log(`wrote ${rel(join(typesDir, name))}`);
  }
  for (const name of stale) {
    rmSync(join(typesDir, name));
    console.log(`removed ${rel(join(typesDir, name))}`);
  }
}

async function migrate(name, replace) {
  assertMigrationName(name);
  if (replace && name !== 'init')
    throw new Error('--replace only rewrites the single `init` migration');
  if (!replace && name === 'init' && migrationNames(migrationsDir).length > 0) {
    throw new Error(
      'migrations already exist; use `migrate init --replace` to regenerate the initial one',
    );
  }
  const sql = await pendingSql({
    fromEmpty: replace || migrationNames(migrationsDir).length === 0,
  });
  if (isEmptyScript(sql)) {
    console.log('the migrations already match the schema; no migration written');
  } else {
    if (replace) removeMigrations(migrationsDir);
    const folder = writeMigration(migrationsDir, name, sql);
    console.log(`wrote ${rel(join(migrationsDir, folder, 'migration.sql'))}`);
  }
  generate();
}

/**
 * An empty migration folder for hand-written SQL that Prisma's schema cannot express. The schema
 * must be covered by the migrations already: a model change goes in a migration of its own.
 */
async function migrateEmpty(name) {
  assertMigrationName(name);
  if (migrationNames(migrationsDir).length === 0) {
    throw new Error('no migrations yet: run `migrate init` first');
  }
  const sql = await pendingSql({ fromEmpty: false });
  if (!isEmptyScript(sql)) {
    throw new Error(
      `the schema has changes no migration covers; make that migration first (migrate <name>):\n${sql.trim()}`,
    );
  }
  const folder = writeMigration(
    migrationsDir,
    name,
    '-- Hand-written: SQL the Prisma schema cannot express (the drift check does not see it).\n',
  );
  console.log(`wrote ${rel(join(migrationsDir, folder, 'migration.sql'))}: write its SQL`);
}

async function check() {
  const problems = [];
  if (migrationNames(migrationsDir).length === 0 || !hasLockFile(migrationsDir)) {
    problems.push(
      `${rel(migrationsDir)} has no migrations or no migration_lock.toml: run \`npm run db:migrate -- init\``,
    );
  } else {
    const sql = await pendingSql({ fromEmpty: false });
    if (!isEmptyScript(sql)) {
      problems.push(
        `the schema has changes no migration covers: run \`npm run db:migrate -- <name>\` and commit it.\n` +
          `SQL the missing migration would contain:\n${sql.trim()}`,
      );
    }
  }
  const { changed, stale } = typesDrift();
  if (changed.length > 0 || stale.length > 0) {
    const files = [...changed.map(([name]) => name), ...stale].map((name) =>
      rel(join(typesDir, name)),
    );
    problems.push(
      `${files.join(', ')} differ from what the schema renders: run \`npm run db:generate\` and commit them`,
    );
  }
  if (problems.length > 0) {
    console.error(`database drift:\n- ${problems.join('\n- ')}`);
    process.exitCode = 1;
    return;
  }
  console.log('no drift: migrations and Kysely types match the schema');
}

async function main(argv) {
  const [command, ...rest] = argv;
  switch (command) {
    case 'migrate': {
      const name = rest.find((arg) => !arg.startsWith('--'));
      return rest.includes('--empty')
        ? migrateEmpty(name)
        : migrate(name, rest.includes('--replace'));
    }
    case 'generate':
      return generate();
    case 'check':
      return check();
    default:
      throw new Error(
        'usage: node tools/codegen/db.mjs migrate <name> [--replace | --empty] | generate | check',
      );
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
