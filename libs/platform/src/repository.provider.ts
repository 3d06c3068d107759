import type { Database } from '@caravel/db';
import type { FactoryProvider } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { DATABASE } from './tokens.js';

/** Provides a Kysely repository class built on the process's database. */
export function repositoryProvider<T>(
  repository: new (db: Kysely<Database['db'] extends Kysely<infer D> ? D : never>) => T,
): FactoryProvider<T> {
  return {
    provide: repository,
    useFactory: (database: Database) => new repository(database.db),
    inject: [DATABASE],
  };
}
