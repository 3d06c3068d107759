import { z } from 'zod';

import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { ToolOptions } from '../core/tool-options.js';
import type { ToolSandbox } from '../ports/tool-sandbox.port.js';

/** A submission: the working tree's diff at the moment `submit` was called. */
export interface SubmitOutput {
  /** The diff exactly as the sandbox reported it. */
  diff: string;
  /** The diff, or null when it holds only whitespace (an empty submission). */
  submission: string | null;
}

/**
 * `submit`: SWE-agent's submission protocol. The submission is read from the sandbox's git state
 * (never from anything the model printed), and a call to this tool ends the run: its effect is
 * `finish`, which the runner checks.
 */
export function submitTool(sandbox: ToolSandbox, options: ToolOptions): CaravelTool<SubmitOutput> {
  return defineTool({
    name: 'submit',
    description:
      'Submit your work and end the run. The submission is the current diff of the working tree ' +
      '(new files included). Call it once the change is complete and verified.',
    effect: 'finish',
    input: z.strictObject({}),
    async run() {
      const diff = await sandbox.diff();
      return { diff, submission: diff.trim() === '' ? null : diff };
    },
    observe: (output) =>
      output.submission === null
        ? 'Submitted with no changes: the working tree matches HEAD.'
        : options.shape(output.submission).text,
  });
}
