import { z } from 'zod';

import { listingObservation } from '../core/observation.js';
import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { ToolOptions } from '../core/tool-options.js';
import type { GrepMatch, ToolSandbox } from '../ports/tool-sandbox.port.js';

/** Longest matching line shown, in characters. */
const MAX_MATCH_CHARS = 300;

/** Lines matching a search. */
export interface GrepOutput {
  pattern: string;
  matches: GrepMatch[];
  /** More lines matched than were returned. */
  truncated: boolean;
}

/** `grep`: search file contents, literal text by default. */
export function grepTool(sandbox: ToolSandbox, options: ToolOptions): CaravelTool<GrepOutput> {
  return defineTool({
    name: 'grep',
    description:
      'Search file contents and list matching lines as path:line: text. The pattern is literal ' +
      'text unless regex is true (then an extended regular expression, as grep -E). The .git ' +
      'directory and binary files are skipped.',
    effect: 'read',
    input: z.strictObject({
      pattern: z.string().min(1).describe('Text (or regular expression) to look for.'),
      path: z.string().min(1).optional().describe('File or directory (default: the root).'),
      include: z.string().min(1).optional().describe('Only files matching this glob, e.g. *.ts.'),
      regex: z.boolean().default(false).describe('Treat the pattern as a regular expression.'),
      ignore_case: z.boolean().default(false).describe('Match case-insensitively.'),
    }),
    async run(input) {
      const result = await sandbox.grep({
        pattern: input.pattern,
        path: input.path,
        include: input.include,
        regex: input.regex,
        ignoreCase: input.ignore_case,
        maxMatches: options.maxGrepMatches,
      });
      return { pattern: input.pattern, matches: result.matches, truncated: result.truncated };
    },
    observe: (output) => {
      if (output.matches.length === 0) return `No lines match ${output.pattern}.`;
      return listingObservation(
        output.matches.map((m) => `${m.path}:${m.line}: ${clip(m.text)}`),
        { truncated: output.truncated, what: 'lines', narrow: 'the pattern, the path or include' },
      );
    },
  });
}

function clip(text: string): string {
  return text.length > MAX_MATCH_CHARS ? `${text.slice(0, MAX_MATCH_CHARS)}…` : text;
}
