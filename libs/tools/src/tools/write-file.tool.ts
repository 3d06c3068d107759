import { z } from 'zod';

import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { ToolSandbox } from '../ports/tool-sandbox.port.js';

/** What `write_file` did. */
export interface WriteFileOutput {
  path: string;
  created: boolean;
  /** Size written, in UTF-8 bytes. */
  bytes: number;
  lines: number;
}

/** `write_file`: creates or overwrites a whole file (parent directories are created). */
export function writeFileTool(sandbox: ToolSandbox): CaravelTool<WriteFileOutput> {
  return defineTool({
    name: 'write_file',
    description:
      'Create a file, or overwrite one, with the given content (missing parent directories are ' +
      'created). To change part of an existing file prefer edit_file.',
    effect: 'write',
    input: z.strictObject({
      path: z.string().min(1).describe('File path, relative to the repository root or absolute.'),
      content: z.string().describe('The complete new content of the file.'),
    }),
    async run(input) {
      const outcome = await sandbox.writeFile(input.path, input.content);
      return {
        path: input.path,
        created: outcome.created,
        bytes: Buffer.byteLength(input.content, 'utf8'),
        lines: countLines(input.content),
      };
    },
    observe: (output) =>
      `${output.created ? 'Created' : 'Overwrote'} ${output.path} ` +
      `(${output.lines} lines, ${output.bytes} bytes).`,
  });
}

function countLines(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}
