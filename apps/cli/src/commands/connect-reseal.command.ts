// First: the ingress's entry loads decorated NestJS classes, which need the metadata polyfill.
import 'reflect-metadata';
import type { EnvSource } from '@caravel/config';
import {
  ConnectTenantRepository,
  openDatabase,
  redactUrl,
  type ConnectTenantRow,
  type Database,
} from '@caravel/db';
import { AppError, isAppError } from '@caravel/errors';
import { CONNECT_SECRET_KEYS, ConnectSecretCipher, connectSecretContext } from '@caravel/ingress';
import { parseKeyring, TokenCipher } from '@caravel/integrations';
import { timingSafeEqual } from 'node:crypto';
import { UsageError } from './cli-args.js';
import { databaseUrlOf } from './trajectory.command.js';

/** The keyring Connect secrets were sealed under before the ingress had one of its own. */
export const TOKEN_KEYS = 'CARAVEL_TOKEN_KEYS';

/** The two keyrings, as the environment gives them. */
export interface ResealKeyrings {
  /** `CONNECT_SECRET_KEYS`: the secrets end up sealed under its current key. */
  connect?: string | undefined;
  /** `CARAVEL_TOKEN_KEYS`: needed only while some secret is still sealed under it. */
  tokens?: string | undefined;
}

/** What a re-seal did, tenant by tenant. */
export interface ResealReport {
  tenants: number;
  /** Client keys moved from the token keyring to the Connect keyring. */
  resealed: string[];
  /** Opened under an older key of the Connect keyring, now sealed under its current one. */
  rotated: number;
  /** Already under the Connect keyring's current key: nothing written. */
  unchanged: number;
  /** Reinstalled while the re-seal ran (sealed anew by the ingress): left as they were. */
  reinstalled: number;
}

type Step = { row: ConnectTenantRow; plaintext: string; from: 'tokens' | 'connect' };

function connectCipher(ring: string | undefined): ConnectSecretCipher {
  if (!ring?.trim()) {
    throw new AppError(
      'CONFIG_INVALID',
      `${CONNECT_SECRET_KEYS} is unset: set it to the ingress's own keyring (id:base64 of 32 bytes, e.g. c1:$(openssl rand -base64 32)), the same the ingress runs with`,
    );
  }
  return new ConnectSecretCipher(ring);
}

/** Refuses a Connect keyring sharing a key with the token keyring: the split would be for show. */
function assertApart(connect: string, tokens: string | undefined): void {
  if (!tokens) return;
  const theirs = parseKeyring(tokens, TOKEN_KEYS);
  const shared = parseKeyring(connect, CONNECT_SECRET_KEYS).filter((mine) =>
    theirs.some((key) => timingSafeEqual(key.key, mine.key)),
  );
  if (shared.length > 0) {
    throw new AppError(
      'CONFIG_INVALID',
      `${CONNECT_SECRET_KEYS} key ${shared.map((k) => k.id).join(', ')} is also a key of ${TOKEN_KEYS}: the ingress would still hold a key that opens people's tokens. Give ${CONNECT_SECRET_KEYS} a fresh key`,
    );
  }
}

/** Opens one tenant's secret under the Connect keyring, else the token keyring; null if neither. */
function stepOf(row: ConnectTenantRow, connect: ConnectSecretCipher, tokens?: TokenCipher) {
  try {
    return { row, plaintext: connect.open(row), from: 'connect' } satisfies Step;
  } catch (error) {
    if (!isAppError(error) || !tokens) return null;
  }
  try {
    const plaintext = tokens.decrypt(row.sealedSecret, connectSecretContext(row.clientKey));
    return { row, plaintext, from: 'tokens' } satisfies Step;
  } catch (error) {
    if (isAppError(error)) return null;
    throw error;
  }
}

function unopened(rows: readonly ConnectTenantRow[], tokens: string | undefined): AppError {
  const which = rows.map((row) => `${row.clientKey} (key ${row.keyId})`).join(', ');
  const hint = tokens
    ? `${TOKEN_KEYS} must be the keyring the ingress sealed them under, retired keys included`
    : `${TOKEN_KEYS} is unset: set it to the keyring the ingress sealed them under before the upgrade`;
  return new AppError(
    'PRECONDITION_FAILED',
    `${rows.length} Connect tenant secret(s) open under neither ${CONNECT_SECRET_KEYS} nor ${TOKEN_KEYS}: ${which}. ${hint}. Nothing was changed`,
  );
}

/**
 * Seals every Connect tenant's shared secret (installed or not) under the current key of
 * `CONNECT_SECRET_KEYS`: those the token keyring sealed before the ingress had its own, and those
 * under an older Connect key. Fails closed: when a secret opens under neither keyring, nothing is
 * written. Idempotent: a second run finds every secret under the current key and writes nothing.
 */
export async function resealConnectSecrets(
  database: Database,
  rings: ResealKeyrings,
): Promise<ResealReport> {
  const connect = connectCipher(rings.connect);
  assertApart(rings.connect ?? '', rings.tokens);
  const tokens = rings.tokens ? new TokenCipher(parseKeyring(rings.tokens, TOKEN_KEYS)) : undefined;
  const tenants = new ConnectTenantRepository(database.db);
  const rows = await tenants.list();
  const steps = rows.map((row) => stepOf(row, connect, tokens));
  const failed = rows.filter((_, index) => steps[index] === null);
  if (failed.length > 0) throw unopened(failed, rings.tokens);
  const report: ResealReport = {
    tenants: rows.length,
    resealed: [],
    rotated: 0,
    unchanged: 0,
    reinstalled: 0,
  };
  await database.db.transaction().execute(async (trx) => {
    for (const { row, plaintext, from } of steps as Step[]) {
      if (from === 'connect' && row.keyId === connect.currentKeyId) {
        report.unchanged += 1;
        continue;
      }
      const sealed = connect.seal(row.clientKey, plaintext);
      const to = { sealedSecret: sealed.ciphertext, keyId: sealed.keyId };
      if (!(await tenants.replaceSecret(row.clientKey, row.sealedSecret, to, trx)))
        report.reinstalled += 1;
      else if (from === 'tokens') report.resealed.push(row.clientKey);
      else report.rotated += 1;
    }
  });
  return report;
}

/** The lines `caravel connect reseal` prints. */
export function describeReseal(report: ResealReport, where: string): string[] {
  if (report.tenants === 0) return [`no Connect tenants in ${where}: nothing to re-seal`];
  return [
    ...report.resealed.map((clientKey) => `${clientKey}: re-sealed from ${TOKEN_KEYS}`),
    `${report.tenants} Connect tenants in ${where}: ${report.resealed.length} re-sealed from ${TOKEN_KEYS}, ` +
      `${report.rotated} moved to the current ${CONNECT_SECRET_KEYS} key, ${report.unchanged} already under it` +
      (report.reinstalled > 0
        ? `, ${report.reinstalled} reinstalled meanwhile (left as sealed)`
        : ''),
  ];
}

/**
 * `caravel connect reseal [--database-url URL | --data-dir D]`: opens the database (the option,
 * else CARAVEL_DATABASE_URL, DATABASE_URL, else the embedded one of CARAVEL_DATA_DIR), re-seals
 * with the environment's two keyrings, says what it did.
 */
export async function runConnect(
  positionals: readonly string[],
  values: Readonly<Record<string, string | undefined>>,
  env: EnvSource,
  io: { out(text: string): void },
): Promise<0> {
  const [sub, ...extra] = positionals;
  if (sub !== 'reseal')
    throw new UsageError(
      'connect',
      sub === undefined ? 'needs a subcommand: connect reseal' : `unknown connect command '${sub}'`,
    );
  if (extra.length > 0) throw new UsageError('connect', `unexpected '${extra.join(' ')}'`);
  const rings = { connect: env[CONNECT_SECRET_KEYS], tokens: env[TOKEN_KEYS] };
  connectCipher(rings.connect);
  const databaseUrl = values['database-url'] ?? env['CARAVEL_DATABASE_URL'] ?? env['DATABASE_URL'];
  const dataDir = values['data-dir'] ?? env['CARAVEL_DATA_DIR'];
  const url = await databaseUrlOf({
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(dataDir ? { dataDir } : {}),
  });
  // The schema is the upgrade's to migrate: a re-seal only rewrites sealed secrets.
  const database = await openDatabase({ url, migrate: false });
  try {
    const report = await resealConnectSecrets(database, rings);
    io.out(`${describeReseal(report, redactUrl(url)).join('\n')}\n`);
    return 0;
  } finally {
    await database.close();
  }
}
