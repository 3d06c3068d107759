import { AppError } from '@caravel/errors';
import type { z } from 'zod';

/** Parses request input with its route schema; BAD_REQUEST naming every problem otherwise. */
export function parseInput<T extends z.ZodType>(
  schema: T,
  raw: unknown,
  what: string,
): z.output<T> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || what}: ${i.message}`);
  throw new AppError('BAD_REQUEST', `invalid ${what}: ${problems.join('; ')}`);
}
