import { AppError } from '@caravel/errors';
import type { z } from 'zod';
import { trajReadSchema } from './traj-read.schema.js';
import type { Traj } from './traj.schema.js';

/** The most schema problems listed in one error message (all are in `details.issues`). */
const LISTED_ISSUES = 5;

/** Renders a zod issue path as a JSON path: `$.trajectory[2].action`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`),
    '$',
  );
}

/** 1-based line and column of a character offset. */
function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  return { line, column: position - before.lastIndexOf('\n') };
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const match = /position (\d+)/.exec(message);
    const where = match?.[1] === undefined ? null : lineAndColumn(text, Number(match[1]));
    const at = where === null ? '' : `:${where.line}:${where.column}`;
    throw new AppError('BAD_REQUEST', `${source}${at}: not valid JSON (${message})`, {
      cause: error,
      details: { file: source, ...where },
    });
  }
}

function schemaError(source: string, issues: readonly z.core.$ZodIssue[]): AppError {
  const listed = issues.map((issue) => ({ path: jsonPath(issue.path), message: issue.message }));
  const summary = listed
    .slice(0, LISTED_ISSUES)
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('; ');
  const more = listed.length > LISTED_ISSUES ? ` (and ${listed.length - LISTED_ISSUES} more)` : '';
  return new AppError('BAD_REQUEST', `${source}: not a valid .traj file: ${summary}${more}`, {
    details: { file: source, issues: listed },
  });
}

/**
 * Validates an already-decoded `.traj` value (see {@link parseTraj}).
 * @throws AppError BAD_REQUEST naming `source` and the JSON path of each problem.
 */
export function parseTrajValue(value: unknown, source: string): Traj {
  const result = trajReadSchema.safeParse(value);
  if (!result.success) throw schemaError(source, result.error.issues);
  return result.data;
}

/**
 * Reads a `.traj` file written by SWE-agent or by Caravel. Unknown fields are kept; fields
 * that later versions added get their defaults; the fields replay and viewers need must be
 * there with the right types.
 * @param text the file's contents
 * @param source the file name, used in error messages
 * @throws AppError BAD_REQUEST with `file:line:column` for bad JSON, or the JSON path of each
 * schema problem.
 */
export function parseTraj(text: string, source: string): Traj {
  return parseTrajValue(parseJson(text, source), source);
}
