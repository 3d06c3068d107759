import type { EnvSource } from '@caravel/config';
import {
  applyServiceGrants,
  GRANT_SERVICES,
  grantsScript,
  isGrantService,
  migrate,
  openDatabase,
  redactUrl,
  serviceRole,
  type Database,
  type ServiceName,
} from '@caravel/db';
import { UsageError } from './cli-args.js';
import { databaseUrlOf } from './trajectory.command.js';

type Values = Readonly<Record<string, string | undefined>>;

/** The database a `db` command works on: the option, CARAVEL_DATABASE_URL, DATABASE_URL, else the embedded one. */
async function databaseUrl(values: Values, env: EnvSource): Promise<string> {
  const url = values['database-url'] ?? env['CARAVEL_DATABASE_URL'] ?? env['DATABASE_URL'];
  const dataDir = values['data-dir'] ?? env['CARAVEL_DATA_DIR'];
  return databaseUrlOf({ ...(url ? { databaseUrl: url } : {}), ...(dataDir ? { dataDir } : {}) });
}

async function withDatabase<T>(url: string, work: (database: Database) => Promise<T>): Promise<T> {
  // Nothing applied on open: the command migrates itself, to say what it applied.
  const database = await openDatabase({ url, migrate: false });
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

/**
 * LangGraph's checkpointer keeps its tables beside Caravel's; its `setup()` creates them (DDL),
 * so it runs here with the owner's rights, not in an agent-runner on its own role.
 */
async function setUpCheckpointer(url: string): Promise<void> {
  const { PostgresSaver } = await import('@langchain/langgraph-checkpoint-postgres');
  const saver = PostgresSaver.fromConnString(url);
  try {
    await saver.setup();
  } finally {
    await saver.end();
  }
}

/** `caravel db migrate`: applies the pending migrations and says which. */
async function migrateCommand(values: Values, env: EnvSource, out: (text: string) => void) {
  const url = await databaseUrl(values, env);
  const where = redactUrl(url);
  const applied = await withDatabase(url, async (database) => {
    const result = await migrate(database, {
      logger: { log: (line) => out(`${line}\n`), warn: (line) => out(`warning: ${line}\n`) },
    });
    if (database.kind === 'postgres') await setUpCheckpointer(url);
    return result.applied;
  });
  out(
    applied.length === 0
      ? `${where}: up to date, no migration to apply\n`
      : `${where}: applied ${applied.length} migration${applied.length === 1 ? '' : 's'}\n`,
  );
}

function servicesOf(values: Values): ServiceName[] {
  // `--service a --service b` and `--service a,b` alike.
  const names = values['service']?.split(',').map((name) => name.trim()) ?? [];
  if (names.length === 0) return GRANT_SERVICES;
  for (const name of names)
    if (!isGrantService(name))
      throw new UsageError('db', `--service ${name}: not a service (${GRANT_SERVICES.join(', ')})`);
  return names.filter(isGrantService);
}

/** `caravel db grants`: prints the grants' SQL, or applies it (`--apply`) and names the roles. */
async function grantsCommand(values: Values, env: EnvSource, out: (text: string) => void) {
  const services = servicesOf(values);
  if (values['apply'] !== 'true') {
    out(grantsScript(services));
    return;
  }
  const url = await databaseUrl(values, env);
  await withDatabase(url, (database) => applyServiceGrants(database, services));
  const roles = services.map(serviceRole).join(', ');
  out(
    `${redactUrl(url)}: granted ${roles} their tables. Give each a password ` +
      `(ALTER ROLE <role> PASSWORD '…') or your own authentication, and its service a ` +
      'DATABASE_URL with that role (docs/db.md, "Roles").\n',
  );
}

/** `caravel db migrate|grants`. */
export async function runDb(
  positionals: readonly string[],
  values: Values,
  env: EnvSource,
  io: { out(text: string): void },
): Promise<0> {
  const [sub, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError('db', `unexpected '${extra.join(' ')}'`);
  const out = (text: string) => io.out(text);
  if (sub === 'migrate') {
    if (values['apply'] !== undefined || values['service'] !== undefined)
      throw new UsageError('db', '--apply and --service are for db grants');
    await migrateCommand(values, env, out);
  } else if (sub === 'grants') await grantsCommand(values, env, out);
  else
    throw new UsageError(
      'db',
      sub === undefined
        ? 'needs a subcommand: db migrate or db grants'
        : `unknown db command '${sub}'`,
    );
  return 0;
}
