import { z } from 'zod';

import { defineTool, type CaravelTool } from '../core/tool-definition.js';

/** The acknowledgement of a control tool. */
export interface AcknowledgedOutput {
  acknowledged: true;
  /** The reason or summary the model gave, when it gave one. */
  note: string | null;
}

/**
 * `no_op`: do nothing this turn. The ensure-no-empty-message middleware injects it when the model
 * answered without calling a tool; the model may also call it when a message was not meant for it.
 */
export function noOpTool(): CaravelTool<AcknowledgedOutput> {
  return defineTool({
    name: 'no_op',
    description:
      'Take no action this turn, for example when a message in the thread is not addressed to ' +
      'you. Give the reason.',
    effect: 'control',
    input: z.strictObject({ reason: z.string().optional().describe('Why nothing is done.') }),
    run: (input) => Promise.resolve(acknowledge(input.reason)),
    observe: () => 'No action was taken.',
  });
}

/**
 * `confirming_completion`: the model states it has finished. Injected by the ensure-no-empty-message
 * middleware when the model's final message carried no tool call, so the run ends deliberately.
 */
export function confirmingCompletionTool(): CaravelTool<AcknowledgedOutput> {
  return defineTool({
    name: 'confirming_completion',
    description:
      'Confirm that the task is complete, with a short summary of what was done. Reply to the ' +
      'user first if they have not been told.',
    effect: 'control',
    input: z.strictObject({
      summary: z.string().optional().describe('What was done, in a sentence or two.'),
    }),
    run: (input) => Promise.resolve(acknowledge(input.summary)),
    observe: () => 'Completion confirmed.',
  });
}

function acknowledge(note: string | undefined): AcknowledgedOutput {
  const trimmed = note?.trim() ?? '';
  return { acknowledged: true, note: trimmed === '' ? null : trimmed };
}
