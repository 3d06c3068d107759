import { z } from 'zod';

import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { ToolOptions } from '../core/tool-options.js';
import type { FileEntry, ToolSandbox } from '../ports/tool-sandbox.port.js';

/** A directory listing. */
export interface LsOutput {
  path: string;
  entries: FileEntry[];
  /** Entries left out past the listing cap. */
  omitted: number;
}

/** `ls`: the direct children of a directory, directories first. */
export function lsTool(sandbox: ToolSandbox, options: ToolOptions): CaravelTool<LsOutput> {
  return defineTool({
    name: 'ls',
    description:
      'List the files and directories directly inside a directory (directories end with /).',
    effect: 'read',
    input: z.strictObject({
      path: z
        .string()
        .min(1)
        .default('.')
        .describe('Directory, relative to the repository root or absolute (default: the root).'),
    }),
    async run(input) {
      const all = [...(await sandbox.listFiles(input.path))].sort(byTypeThenName);
      const entries = all.slice(0, options.maxListEntries);
      return { path: input.path, entries, omitted: all.length - entries.length };
    },
    observe: (output) => {
      if (output.entries.length === 0) return `${output.path} is empty.`;
      const lines = output.entries.map((e) => (e.type === 'directory' ? `${e.name}/` : e.name));
      if (output.omitted > 0) {
        lines.push(`(${output.omitted} more entries not shown; use glob to narrow the listing)`);
      }
      return lines.join('\n');
    },
  });
}

function byTypeThenName(a: FileEntry, b: FileEntry): number {
  const dirA = a.type === 'directory' ? 0 : 1;
  const dirB = b.type === 'directory' ? 0 : 1;
  return dirA - dirB || a.name.localeCompare(b.name);
}
