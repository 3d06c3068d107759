import { AppError } from '@caravel/errors';
import { attemptLedgerSchema, type AttemptLedger } from '@caravel/evals';
import { randomUUID } from 'node:crypto';
import { open, readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseFile } from './json-file.js';

/** The attempts ledger's file name in a run's output folder. */
export const LEDGER_FILE = 'attempts.json';

/** The ledger in `dir`, or undefined when there is none; a damaged one is refused, naming it. */
export async function readLedger(dir: string): Promise<AttemptLedger | undefined> {
  const file = join(dir, LEDGER_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError('BAD_REQUEST', `${file}: not JSON; remove it (or the folder) to start over`);
  }
  return parseFile(attemptLedgerSchema, raw, `${file}: not an attempts ledger`);
}

/** Writes `text` to `file` so that a kill leaves the old or the new content, never a part. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const partial = join(dirname(file), `.${randomUUID()}.partial`);
  const handle = await open(partial, 'w');
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(partial, file);
}
