import { z } from 'zod';

import { listingObservation } from '../core/observation.js';
import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { ToolOptions } from '../core/tool-options.js';
import type { ToolSandbox } from '../ports/tool-sandbox.port.js';

/** Paths matching a glob. */
export interface GlobOutput {
  pattern: string;
  paths: string[];
  /** More paths matched than were returned. */
  truncated: boolean;
}

/** `glob`: find files by name pattern. */
export function globTool(sandbox: ToolSandbox, options: ToolOptions): CaravelTool<GlobOutput> {
  return defineTool({
    name: 'glob',
    description:
      'Find files whose path matches a glob pattern (`*` within a directory, `**` across ' +
      'directories, `?`, `{a,b}`), e.g. `src/**/*.ts`. Paths are relative to `path`.',
    effect: 'read',
    input: z.strictObject({
      pattern: z.string().min(1).describe('The glob pattern.'),
      path: z.string().min(1).optional().describe('Directory to search (default: the root).'),
    }),
    async run(input) {
      const result = await sandbox.glob({
        pattern: input.pattern,
        path: input.path,
        maxResults: options.maxListEntries,
      });
      return { pattern: input.pattern, paths: result.paths, truncated: result.truncated };
    },
    observe: (output) => {
      if (output.paths.length === 0) return `No files match ${output.pattern}.`;
      return listingObservation(output.paths, {
        truncated: output.truncated,
        what: 'files',
        narrow: 'the pattern or the path',
      });
    },
  });
}
