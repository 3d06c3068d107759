// A database that exists only while the tool runs: the schema engine's main connection points at it,
// so nothing the tool does can touch a real database.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

async function adminQuery(serverUrl, text) {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    const where = new URL(serverUrl).host;
    throw new Error(
      `PostgreSQL is not reachable at ${where} (${error.message}). Start it with \`pg_ctlcluster 15 main start\`, ` +
        'or set CARAVEL_CODEGEN_DATABASE_URL to a server where the tool may create throwaway databases.',
    );
  }
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Runs `fn(url)` with a fresh empty database on the server, dropped afterwards. */
export async function withThrowawayDatabase(serverUrl, fn) {
  const name = `caravel_codegen_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}
