import { describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { asDependencyError } from './coded-postgres.dialect.js';
import {
  duplicateAs,
  isConnectionFailure,
  isUniqueViolation,
  postgresUnavailable,
} from './database-errors.js';
import { parseInt8 } from './type-parsers.js';

const withCode = (code: string): Error => Object.assign(new Error(`failed ${code}`), { code });

describe('isUniqueViolation', () => {
  it('recognises SQLSTATE 23505, also as the cause of a wrapper', () => {
    expect(isUniqueViolation(withCode('23505'))).toBe(true);
    expect(isUniqueViolation(new Error('wrapped', { cause: withCode('23505') }))).toBe(true);
  });

  it('rejects other errors and non-errors', () => {
    expect(isUniqueViolation(withCode('23503'))).toBe(false);
    expect(isUniqueViolation('23505')).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
  });
});

describe('duplicateAs', () => {
  it('turns a unique violation into DUPLICATE and lets other errors through', async () => {
    await expect(
      duplicateAs('taken', () => Promise.reject(withCode('23505'))),
    ).rejects.toMatchObject({
      code: 'DUPLICATE',
      message: 'taken',
    });
    await expect(
      duplicateAs('taken', () => Promise.reject(withCode('42P01'))),
    ).rejects.toMatchObject({ code: '42P01' });
    await expect(duplicateAs('taken', () => Promise.resolve(3))).resolves.toBe(3);
  });
});

describe('connection failures', () => {
  it('classifies refused, unknown host, missing database and pool timeouts as connection failures', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', '3D000', '28P01'])
      expect(isConnectionFailure(withCode(code))).toBe(true);
    expect(isConnectionFailure(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isConnectionFailure(withCode('42601'))).toBe(false);
  });

  it('classifies a lost connection and a server shutting down, also as the cause of a wrapper', () => {
    for (const code of ['ECONNRESET', 'EPIPE', '57P01', '08006'])
      expect(isConnectionFailure(withCode(code))).toBe(true);
    expect(isConnectionFailure(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionFailure(new Error('wrapped', { cause: withCode('ECONNREFUSED') }))).toBe(
      true,
    );
    expect(isConnectionFailure(withCode('22P05'))).toBe(false);
  });

  it('codes a connection failure as a retryable DEPENDENCY_UNAVAILABLE without the address', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5432'), {
      code: 'ECONNREFUSED',
    });
    const coded = asDependencyError(refused);
    expect(coded).toBeInstanceOf(AppError);
    expect(coded).toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      retryable: true,
      cause: refused,
    });
    expect((coded as AppError).message).not.toContain('10.1.2.3');
    const badQuery = withCode('22P05');
    expect(asDependencyError(badQuery)).toBe(badQuery);
  });

  it("codes a statement refused to the service's role as CONFIG_INVALID naming caravel db grants", () => {
    const refused = Object.assign(new Error('permission denied for table personal_tokens'), {
      code: '42501',
    });
    const coded = asDependencyError(refused);
    expect(coded).toBeInstanceOf(AppError);
    expect(coded).toMatchObject({ code: 'CONFIG_INVALID', retryable: false, cause: refused });
    expect((coded as AppError).message).toContain('permission denied for table personal_tokens');
    expect((coded as AppError).message).toContain('caravel db grants --apply');
  });

  it('explains how to start PostgreSQL, naming host and port', () => {
    const error = postgresUnavailable('127.0.0.1', 1, 'postgres', withCode('ECONNREFUSED'));
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('DEPENDENCY_UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/127\.0\.0\.1:1.*pg_ctlcluster 15 main start.*DATABASE_URL/s);
  });
});

describe('parseInt8', () => {
  it('parses safe integers and refuses values a JS number cannot hold exactly', () => {
    expect(parseInt8('42')).toBe(42);
    expect(parseInt8('-9007199254740991')).toBe(-9007199254740991);
    expect(() => parseInt8('9007199254740993')).toThrow(/does not fit/);
  });
});
