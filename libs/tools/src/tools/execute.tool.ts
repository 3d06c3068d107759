import { z } from 'zod';

import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import { timeoutMessage } from '../core/observation.js';
import type { ToolOptions } from '../core/tool-options.js';
import type { ToolSandbox } from '../ports/tool-sandbox.port.js';

/** What `execute` returns. `observation` is the shaped text the model reads. */
export interface ExecuteOutput {
  exitCode: number | null;
  timedOut: boolean;
  /** Output was clipped, by the shaper or by the sandbox. */
  truncated: boolean;
  /** Characters the shaper left out. */
  elidedChars: number;
  observation: string;
}

/** `execute`: one shell command in the sandbox's persistent session, with a time limit. */
export function executeTool(
  sandbox: ToolSandbox,
  options: ToolOptions,
): CaravelTool<ExecuteOutput> {
  const maxSeconds = options.maxExecTimeoutMs / 1000;
  return defineTool({
    name: 'execute',
    description:
      'Run a shell command in the sandbox (bash, persistent session: cd and exported variables ' +
      'carry over). Output is stdout and stderr together, clipped when long. Do not start ' +
      'interactive programs (editors, pagers, REPLs).',
    effect: 'write',
    input: z.strictObject({
      command: z.string().trim().min(1).describe('The shell command to run.'),
      timeout_seconds: z
        .number()
        .positive()
        .max(maxSeconds)
        .optional()
        .describe(`Time limit in seconds (default ${options.defaultExecTimeoutMs / 1000}).`),
    }),
    async run(input) {
      const timeoutMs =
        input.timeout_seconds === undefined
          ? options.defaultExecTimeoutMs
          : Math.round(input.timeout_seconds * 1000);
      const result = await sandbox.exec({ command: input.command, timeoutMs });
      const shaped = (options.shapeCommandOutput ?? options.shape)(result.output);
      const parts: string[] = [];
      if (result.timedOut) parts.push(timeoutMessage(timeoutMs));
      if (!shaped.empty) parts.push(shaped.text);
      else if (!result.timedOut && result.exitCode === 0) parts.push(shaped.text);
      else parts.push('The command produced no output.');
      if (result.truncated) parts.push('(The sandbox cut this output before it reached you.)');
      if (!result.timedOut && result.exitCode !== 0) {
        parts.push(`[exit code: ${result.exitCode ?? 'none'}]`);
      }
      return {
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        truncated: shaped.truncated || result.truncated,
        elidedChars: shaped.elidedChars,
        observation: parts.join('\n'),
      };
    },
    observe: (output) => output.observation,
  });
}
