import { AppError } from '@caravel/errors';
import { z } from 'zod';

import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { ToolOptions } from '../core/tool-options.js';
import type { ToolSandbox } from '../ports/tool-sandbox.port.js';
import { numberLine, splitLines } from './read-file.tool.js';

/** Lines of context shown around an edit. */
const SNIPPET_CONTEXT = 4;

/** What `edit_file` changed. */
export interface EditFileOutput {
  path: string;
  occurrences: number;
  /** 1-based lines where the replaced occurrences started (before the edit). */
  lines: number[];
  /** Numbered lines around the first replacement, from the edited file. */
  snippet: string;
}

/** `edit_file`: exact string replacement, refusing absent or ambiguous matches. */
export function editFileTool(
  sandbox: ToolSandbox,
  options: ToolOptions,
): CaravelTool<EditFileOutput> {
  return defineTool({
    name: 'edit_file',
    description:
      'Replace an exact piece of text in a file. old_string must match the file exactly, ' +
      'whitespace and indentation included, and match once unless replace_all is true. Read the ' +
      'file first and copy the text from it.',
    effect: 'write',
    input: z.strictObject({
      path: z.string().min(1).describe('File path, relative to the repository root or absolute.'),
      old_string: z.string().min(1).describe('The exact text to replace.'),
      new_string: z.string().describe('The text to put in its place.'),
      replace_all: z.boolean().default(false).describe('Replace every occurrence.'),
    }),
    async run(input) {
      if (input.old_string === input.new_string) {
        throw new AppError('BAD_REQUEST', 'old_string and new_string are the same; nothing to do.');
      }
      const outcome = await sandbox.editFile({
        path: input.path,
        oldText: input.old_string,
        newText: input.new_string,
        replaceAll: input.replace_all,
      });
      switch (outcome.status) {
        case 'no-match':
          throw noMatch(input.path);
        case 'ambiguous':
          throw ambiguous(input.path, outcome.occurrences, outcome.lines);
        case 'replaced': {
          const firstLine = outcome.lines[0] ?? 1;
          const edited = splitLines(await sandbox.readFile(input.path));
          const span = splitLines(input.new_string).length;
          const snippet = snippetAround(edited, firstLine, span, options.maxLineChars);
          return {
            path: input.path,
            occurrences: outcome.occurrences,
            lines: outcome.lines,
            snippet,
          };
        }
      }
    },
    observe: (output) =>
      `Replaced ${output.occurrences} occurrence${output.occurrences === 1 ? '' : 's'} in ` +
      `${output.path}. The edited region:\n${output.snippet}\n` +
      'Check that the change is what you intended; edit again if not.',
  });
}

function noMatch(path: string): AppError {
  return new AppError(
    'NOT_FOUND',
    `old_string was not found in ${path}; nothing was changed. It must match the file exactly, ` +
      'whitespace and indentation included: read the file again and copy the text from it.',
    { details: { path, occurrences: 0 } },
  );
}

function ambiguous(path: string, occurrences: number, lines: number[]): AppError {
  return new AppError(
    'CONFLICT',
    `old_string appears ${occurrences} times in ${path} (starting on lines ${lines.join(', ')}); ` +
      'nothing was changed. Include more surrounding lines so that it matches exactly once, or ' +
      'set replace_all to true to replace every occurrence.',
    { details: { path, occurrences, lines } },
  );
}

function snippetAround(lines: string[], first: number, span: number, maxChars: number): string {
  const from = Math.max(1, first - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, first + Math.max(span, 1) - 1 + SNIPPET_CONTEXT);
  const out: string[] = [];
  for (let n = from; n <= to; n += 1) out.push(numberLine(n, lines[n - 1] ?? '', maxChars));
  return out.join('\n');
}
