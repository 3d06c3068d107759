import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

/**
 * PostgreSQL's shared buffer pool inside PGlite. The default (128 MB) is touched as PostgreSQL
 * starts, so it all counts in the process's memory; one embedded process with a database of
 * tens of MB gains nothing from it (the operating system caches the data directory's files
 * anyway). 16 MB took PGlite's share of an opened data directory from ~290 MB to ~180 MB RSS.
 */
export const PGLITE_SHARED_BUFFERS = '16MB';

/** PGlite's own start parameters plus ours. */
export function pgliteStartParams(): string[] {
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];
}

/** True when `dataDir` holds no initialised cluster yet (PostgreSQL writes PG_VERSION first). */
export function needsInitdb(dataDir: string): boolean {
  return !existsSync(join(dataDir, 'PG_VERSION'));
}

/**
 * Creates a fresh PGlite cluster in `dataDir` in a child process, which then exits. initdb runs
 * a second WebAssembly instance whose memory (~800 MB RSS) a Node process never gives back, so
 * a server that initialised its own data directory idled at 3x the memory of one that opened
 * an existing one. Resolves false when the child could not do it (the caller then initialises
 * in process, which reports the failure properly).
 */
export function initdbInChild(dataDir: string): Promise<boolean> {
  const entry = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  const program = [
    `const pglite = await import(${JSON.stringify(entry)});`,
    `const { PGlite } = pglite.PGlite ? pglite : pglite.default;`,
    `const pg = await PGlite.create({ dataDir: process.argv[1] });`,
    `await pg.close();`,
  ].join('\n');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', program, dataDir], {
      stdio: 'ignore',
    });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0 && !needsInitdb(dataDir)));
  });
}
