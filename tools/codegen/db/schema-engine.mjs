// Prisma's wasm schema engine, loaded by hand: the Prisma CLI cannot download its native engine here.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory, ColumnTypeEnum } from '@prisma/driver-adapter-utils';
import pg from 'pg';

const NO_FILTERS = { externalTables: [], externalEnums: [] };
const PG_CHAR = 18;
const PG_TEXT = 25;
let loaded = false;

function charColumnsAsText(result) {
  for (const one of Array.isArray(result) ? result : [result]) {
    for (const field of one?.fields ?? [])
      if (field.dataTypeID === PG_CHAR) {
        field.dataTypeID = PG_TEXT;
        field.caravelChar = true;
      }
  }
  return result;
}

/**
 * The engine introspects the shadow database through @prisma/adapter-pg, which rejects the
 * one-byte "char" type of pg_catalog columns ("Column type 'char' could not be deserialized").
 * Reporting those columns as text (same string value) lets `diff` replay migrations; the adapter
 * below then tells the engine they are characters again. Tool-only.
 */
function reportCharColumnsAsText() {
  const original = pg.Client.prototype.query;
  if (original.caravelCharAsText) return;
  const patched = function (config, values, callback) {
    const done = typeof values === 'function' ? values : callback;
    if (typeof done === 'function') {
      const wrapped = (error, result) => done(error, error ? result : charColumnsAsText(result));
      return typeof values === 'function'
        ? original.call(this, config, wrapped)
        : original.call(this, config, values, wrapped);
    }
    const out = original.call(this, config, values);
    return out && typeof out.then === 'function' ? out.then(charColumnsAsText) : out;
  };
  patched.caravelCharAsText = true;
  pg.Client.prototype.query = patched;
}

function loadWasm() {
  if (loaded) return;
  const wasmPath = fileURLToPath(
    import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg'),
  ).replace(/\.js$/, '.wasm');
  const module = new WebAssembly.Module(readFileSync(wasmPath));
  const instance = new WebAssembly.Instance(module, { './schema_engine_bg.js': bg });
  bg.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  loaded = true;
}

/**
 * Two differences between @prisma/adapter-pg and Prisma's native engine, undone per adapter:
 * - `executeScript` splits a migration on every `;`, which cuts a dollar-quoted body (a `DO`
 *   block) apart; the native engine sends the script whole, and so does this.
 * - a "char" column (reported as text above) comes back as a character, as the native engine
 *   reads it: the describer takes `pg_constraint.contype` as one, and panics on text as soon as
 *   the database has a CHECK constraint.
 */
function likeNativeEngine(adapter) {
  const queryRaw = adapter.queryRaw;
  adapter.queryRaw = async function (query) {
    let chars = [];
    const performIO = this.performIO;
    const reading = Object.create(this, {
      performIO: {
        value: async (io) => {
          const result = await performIO.call(this, io);
          chars = result.fields.flatMap((field, i) => (field.caravelChar ? [i] : []));
          return result;
        },
      },
    });
    const result = await queryRaw.call(reading, query);
    for (const i of chars) result.columnTypes[i] = ColumnTypeEnum.Character;
    return result;
  };
  adapter.executeScript = async function (script) {
    try {
      await this.underlyingDriver().query(script);
    } catch (error) {
      this.onError(error);
    }
  };
  return adapter;
}

class NativeLikePg extends PrismaPg {
  async connect() {
    return likeNativeEngine(await super.connect());
  }

  async connectToShadowDb() {
    return likeNativeEngine(await super.connectToShadowDb());
  }
}

/**
 * Opens the engine on a PostgreSQL server. The adapter creates (and drops) its own shadow database
 * on that server whenever a diff has to replay migrations.
 */
export async function openSchemaEngine({ schema, connectionString }) {
  loadWasm();
  reportCharColumnsAsText();
  const factory = bindMigrationAwareSqlAdapterFactory(new NativeLikePg({ connectionString }));
  const engine = await bg.SchemaEngine.new(
    { datamodels: [['schema.prisma', schema]] },
    () => {},
    factory,
  );
  return {
    /** SQL that takes a database from the migrations (or from nothing) to the schema. */
    async diffToSchema(migrationsList) {
      const from = migrationsList ? { tag: 'migrations', ...migrationsList } : { tag: 'empty' };
      const to = { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: schema }] };
      const result = await engine.diff({
        from,
        to,
        script: true,
        exitCode: null,
        filters: NO_FILTERS,
      });
      return result.stdout;
    },
    close() {
      engine.free();
    },
  };
}

/** True when a diff script contains no statement (the engine prints a comment for "no change"). */
export function isEmptyScript(sql) {
  return sql
    .split('\n')
    .map((line) => line.trim())
    .every((line) => line === '' || line.startsWith('--'));
}
