import { describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { parseDatabaseUrl, redactUrl } from './database-url.js';

describe('parseDatabaseUrl', () => {
  it('reads host, port and database from postgres:// and postgresql:// URLs', () => {
    expect(parseDatabaseUrl('postgres://postgres@127.0.0.1:5433/caravel')).toEqual({
      kind: 'postgres',
      url: 'postgres://postgres@127.0.0.1:5433/caravel',
      host: '127.0.0.1',
      port: 5433,
      database: 'caravel',
    });
    expect(parseDatabaseUrl('postgresql://db.internal/app')).toMatchObject({
      host: 'db.internal',
      port: 5432,
      database: 'app',
    });
  });

  it('defaults the database name to postgres', () => {
    expect(parseDatabaseUrl('postgres://u@h:1')).toMatchObject({ database: 'postgres', port: 1 });
  });

  it('reads pglite:memory as an in-memory database', () => {
    expect(parseDatabaseUrl('pglite:memory')).toEqual({ kind: 'pglite', dataDir: null });
  });

  it('resolves a relative pglite directory against the working directory and keeps absolute ones', () => {
    expect(parseDatabaseUrl('pglite:.caravel/pgdata', '/srv/app')).toEqual({
      kind: 'pglite',
      dataDir: '/srv/app/.caravel/pgdata',
    });
    expect(parseDatabaseUrl('pglite:/var/lib/caravel', '/srv/app')).toEqual({
      kind: 'pglite',
      dataDir: '/var/lib/caravel',
    });
    expect(parseDatabaseUrl('pglite:///var/lib/caravel', '/srv/app')).toEqual({
      kind: 'pglite',
      dataDir: '/var/lib/caravel',
    });
  });

  it.each(['mysql://h/db', 'sqlite:x.db', 'pglite:', ''])('rejects %j as CONFIG_INVALID', (url) => {
    let thrown: unknown;
    try {
      parseDatabaseUrl(url);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('CONFIG_INVALID');
  });

  it('never echoes a password in its error', () => {
    expect(() => parseDatabaseUrl('mysql://u:secret@h/db')).toThrow(/u:\*\*\*@h/);
  });
});

describe('redactUrl', () => {
  it('hides the password and leaves URLs without one alone', () => {
    expect(redactUrl('postgres://u:pw@h:5432/db')).toBe('postgres://u:***@h:5432/db');
    expect(redactUrl('postgres://u@h/db')).toBe('postgres://u@h/db');
  });
});
