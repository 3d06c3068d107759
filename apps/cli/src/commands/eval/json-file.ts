import { AppError } from '@caravel/errors';
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';

/**
 * A JSON file's content, unchecked. A missing file or one that is not JSON is a BAD_REQUEST whose
 * message `refusal` writes from why (`no such file` or `not JSON`).
 */
export async function readJsonFile(
  file: string,
  refusal: (why: 'no such file' | 'not JSON') => string,
): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not JSON';
    throw new AppError('BAD_REQUEST', refusal(why));
  }
}

/**
 * `raw` as `schema` says, or a BAD_REQUEST `<what>: <path of the first issue>: <its message>`
 * (`(top level)` for the document itself).
 */
export function parseFile<S extends z.ZodType>(schema: S, raw: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : '(top level)';
  throw new AppError('BAD_REQUEST', `${what}: ${where}: ${issue?.message ?? 'invalid'}`);
}
