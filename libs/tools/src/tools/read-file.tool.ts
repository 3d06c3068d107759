import { AppError } from '@caravel/errors';
import { z } from 'zod';

import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { ToolOptions } from '../core/tool-options.js';
import type { ToolSandbox } from '../ports/tool-sandbox.port.js';

/** One window of a file, numbered like `cat -n`. */
export interface ReadFileOutput {
  path: string;
  totalLines: number;
  /** First line shown (1-based); 0 for an empty file. */
  startLine: number;
  /** Last line shown (1-based); 0 for an empty file. */
  endLine: number;
  /** The `offset` that continues after this window, or null at the end of the file. */
  nextOffset: number | null;
  /** The numbered lines. */
  content: string;
}

/** `read_file`: a window of a text file with line numbers, in the manner of SWE-agent's viewer. */
export function readFileTool(
  sandbox: ToolSandbox,
  options: ToolOptions,
): CaravelTool<ReadFileOutput> {
  return defineTool({
    name: 'read_file',
    description:
      'Read a text file with line numbers. Shows a window of lines: `offset` is the first line ' +
      `(1-based, default 1), \`limit\` the number of lines (default ${options.defaultReadLines}). ` +
      'The header gives the total line count; the footer says how to continue.',
    effect: 'read',
    input: z.strictObject({
      path: z.string().min(1).describe('File path, relative to the repository root or absolute.'),
      offset: z.number().int().min(1).optional().describe('First line to show (1-based).'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(options.maxReadLines)
        .optional()
        .describe('How many lines to show.'),
    }),
    async run(input) {
      const text = await sandbox.readFile(input.path);
      const lines = splitLines(text);
      const offset = input.offset ?? 1;
      if (offset > Math.max(lines.length, 1)) {
        throw new AppError(
          'BAD_REQUEST',
          `offset ${offset} is past the end of ${input.path}, which has ${lines.length} lines.`,
          { details: { path: input.path, offset, totalLines: lines.length } },
        );
      }
      const limit = input.limit ?? options.defaultReadLines;
      return window(input.path, lines, offset, limit, options);
    },
    observe: renderWindow,
  });
}

/** Lines of a text; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A line as `cat -n` prints it: the number right-aligned in six columns, a tab, the text. */
export function numberLine(lineNumber: number, text: string, maxChars: number): string {
  const shown =
    text.length > maxChars
      ? `${text.slice(0, maxChars)}… [line cut: ${text.length - maxChars} more characters]`
      : text;
  return `${String(lineNumber).padStart(6)}\t${shown}`;
}

function window(
  path: string,
  lines: string[],
  offset: number,
  limit: number,
  options: ToolOptions,
): ReadFileOutput {
  const last = Math.min(lines.length, offset - 1 + limit);
  const rendered: string[] = [];
  let used = 0;
  for (let n = offset; n <= last; n += 1) {
    const line = numberLine(n, lines[n - 1] ?? '', options.maxLineChars);
    // The character budget ends the window early, but a window always shows at least one line.
    if (rendered.length > 0 && used + line.length + 1 > options.maxReadChars) break;
    rendered.push(line);
    used += line.length + 1;
  }
  const endLine = rendered.length === 0 ? 0 : offset + rendered.length - 1;
  return {
    path,
    totalLines: lines.length,
    startLine: rendered.length === 0 ? 0 : offset,
    endLine,
    nextOffset: endLine < lines.length ? endLine + 1 : null,
    content: rendered.join('\n'),
  };
}

function renderWindow(output: ReadFileOutput): string {
  const parts = [`[File: ${output.path} (${output.totalLines} lines total)]`];
  if (output.totalLines === 0) {
    parts.push('(the file is empty)');
    return parts.join('\n');
  }
  if (output.startLine > 1) parts.push(`(${output.startLine - 1} more lines above)`);
  parts.push(output.content);
  if (output.nextOffset !== null) {
    const below = output.totalLines - output.endLine;
    parts.push(`(${below} more lines below; continue with offset=${output.nextOffset})`);
  }
  return parts.join('\n');
}
