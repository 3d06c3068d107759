import { z } from 'zod';

import { defineTool, type CaravelTool } from '../core/tool-definition.js';

/** Why the agent gave up. */
export interface ForfeitOutput {
  reason: string;
}

/** The name the runner looks for to end a run with `exit_forfeit` (SWE-agent's own tool name). */
export const FORFEIT_TOOL_NAME = 'exit_forfeit';

/**
 * `exit_forfeit`: the agent gives up on a task it cannot do, saying why. Like `submit` it ends the
 * run (effect `finish`); the runner records `exit_forfeit` (and, as on every error path,
 * autosubmits whatever diff the work left: `submitted (exit_forfeit)`).
 */
export function forfeitTool(): CaravelTool<ForfeitOutput> {
  return defineTool({
    name: FORFEIT_TOOL_NAME,
    description:
      'Give up on the task when it cannot be done (missing access, contradictory request, ' +
      'environment broken beyond repair). Say why; tell the user with reply_to_user first.',
    effect: 'finish',
    input: z.strictObject({
      reason: z.string().trim().min(1).describe('Why the task cannot be done.'),
    }),
    run: (input) => Promise.resolve({ reason: input.reason }),
    observe: (output) => `Gave up: ${output.reason}`,
  });
}
