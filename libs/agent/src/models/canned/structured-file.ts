import { readFileSync } from 'node:fs';
import { AppError } from '@caravel/errors';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';

/** A parsed YAML/JSON file that can still say where each value was written. */
export interface StructuredFile {
  readonly file: string;
  readonly value: unknown;
  /** `file:line:col` of the value at `path`, or of its nearest ancestor that has a position. */
  positionOf(path: readonly (string | number)[]): string;
}

function malformed(file: string, message: string, cause?: unknown): AppError {
  return new AppError('BAD_REQUEST', message, { details: { file }, cause });
}

/** Reads a file as UTF-8 text; a missing or unreadable file is a BAD_REQUEST naming it. */
export function readTextFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw malformed(file, `cannot read ${file}: ${reason}`, error);
  }
}

function positionFinder(file: string, doc: Document, lines: LineCounter) {
  return (path: readonly (string | number)[]): string => {
    for (let depth = path.length; depth >= 0; depth -= 1) {
      const node: unknown = doc.getIn(path.slice(0, depth), true);
      if (isNode(node) && node.range) {
        const { line, col } = lines.linePos(node.range[0]);
        return `${file}:${line}:${col}`;
      }
    }
    return `${file}:1:1`;
  };
}

/**
 * Parses YAML or JSON text (JSON is read by the YAML parser so both report line and column).
 * A syntax error is a BAD_REQUEST `file:line:col: <parser message>`.
 */
export function parseStructuredText(file: string, text: string): StructuredFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first !== undefined) {
    const pos = first.linePos?.[0] ?? lines.linePos(first.pos[0]);
    const reason = first.message.split('\n')[0] ?? first.message;
    throw malformed(file, `${file}:${pos.line}:${pos.col}: cannot parse: ${reason}`, first);
  }
  return {
    file,
    value: doc.toJS({ maxAliasCount: 100 }),
    positionOf: positionFinder(file, doc, lines),
  };
}

/**
 * Validates a parsed file against a zod schema; the first issue becomes a BAD_REQUEST
 * `file:line:col: <path>: <zod message>` pointing at the offending value.
 */
export function validateStructured<T>(
  parsed: StructuredFile,
  schema: z.ZodType<T>,
  what: string,
): T {
  const result = schema.safeParse(parsed.value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = (issue?.path ?? []).filter(
    (key): key is string | number => typeof key === 'string' || typeof key === 'number',
  );
  const where = parsed.positionOf(path);
  const at = path.length === 0 ? '' : ` at ${formatPath(path)}`;
  throw malformed(
    parsed.file,
    `${where}: not a valid ${what}${at}: ${issue?.message ?? 'invalid'}`,
    result.error,
  );
}

/** `responses[2].tool_calls[0].name` */
export function formatPath(path: readonly (string | number)[]): string {
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`))
    .join('');
}
