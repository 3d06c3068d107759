import { z } from 'zod';
import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { SubagentOutcome, SubagentPort } from './agent-work.ports.js';

/** The name of the delegation tool. */
export const TASK_TOOL_NAME = 'task';

/**
 * `task`: hands a self-contained subtask to a subagent that works in the same sandbox with its
 * own model (the subagent model), its own conversation and its own share of the run's budget,
 * and answers with its final message. The subagent cannot delegate further and cannot end the
 * run. Its effect is `write` (it may change files), so plan mode hides it.
 */
export function taskTool(port: SubagentPort): CaravelTool<SubagentOutcome> {
  return defineTool({
    name: TASK_TOOL_NAME,
    description:
      'Delegate a self-contained subtask (research a question, find where something is done, ' +
      'make an isolated change) to a subagent working in the same sandbox. It sees nothing of ' +
      'this conversation: put everything it needs in prompt, and say what its answer must ' +
      'contain. Its final message comes back as the result. Use it to keep long searches and ' +
      'noisy output out of your own context.',
    effect: 'write',
    input: z.strictObject({
      description: z.string().trim().min(1).max(200).describe('A few words naming the subtask.'),
      prompt: z
        .string()
        .trim()
        .min(1)
        .max(40_000)
        .describe('The full instructions for the subagent, and what to report back.'),
    }),
    run: (input, call) =>
      port.run({ description: input.description, prompt: input.prompt, callId: call.callId }),
    observe: (outcome) =>
      outcome.exitStatus === 'submitted'
        ? outcome.answer
        : `The subagent stopped before it finished (${outcome.exitStatus}): ${outcome.answer}`,
  });
}
