import { AppError } from '@caravel/errors';
import { z } from 'zod';
import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type {
  PlatformIssueReporter,
  RunPeople,
  UserInstructionsPort,
} from './agent-state.ports.js';

/** The longest standing instructions a person may keep, in characters. */
export const MAX_USER_INSTRUCTIONS_CHARS = 4000;

/** The shortest quote of a person's words that can stand for their asking. */
const MIN_QUOTE_CHARS = 8;

/**
 * `save_user_instructions`: keep standing instructions for the person who asked (e.g. "always
 * answer in French"). They are attached to that person's messages only, never to the shared
 * system prompt; repository instructions and AGENTS.md win on conflict. The agent quotes the
 * person's own words asking for it, and they must be in a message that person wrote in this run:
 * a prompt injected through an issue, a file or a page cannot plant lasting instructions that
 * would steer every later run for them.
 */
export function saveUserInstructionsTool(
  store: UserInstructionsPort,
  people: RunPeople,
): CaravelTool<{ subject: string }> {
  return defineTool({
    name: 'save_user_instructions',
    description:
      'Save standing instructions the user asked you to remember for their future requests. ' +
      'Replaces their previous instructions: include everything that should still apply. ' +
      'Only when the person asked you to in their own message: quote their words exactly.',
    effect: 'control',
    input: z.strictObject({
      instructions: z.string().trim().min(1).max(MAX_USER_INSTRUCTIONS_CHARS),
      quote: z
        .string()
        .trim()
        .min(MIN_QUOTE_CHARS)
        .describe(
          'The words of the person asking you to remember this, copied from their message.',
        ),
    }),
    async run(input) {
      if (people.requester === null) {
        throw new AppError(
          'FORBIDDEN',
          'No person asked for this run: there is nobody to save instructions for.',
        );
      }
      if (!people.wrote(people.requester, input.quote)) {
        throw new AppError(
          'FORBIDDEN',
          `Not saved: ${people.requester} did not write "${input.quote.slice(0, 200)}" in a ` +
            'message of this run. Save standing instructions only when that person asks you to ' +
            'in their own message, quoting their words exactly.',
        );
      }
      await store.save(people.requester, input.instructions);
      return { subject: people.requester };
    },
    observe: (output) => `Saved the standing instructions of ${output.subject}.`,
  });
}

/**
 * `report_platform_issue`: tell Caravel's operators about a problem with the platform itself (a
 * broken tool, a sandbox that misbehaves, missing credentials), not with the user's task.
 */
export function reportPlatformIssueTool(
  reporter: PlatformIssueReporter,
): CaravelTool<{ id: string }> {
  return defineTool({
    name: 'report_platform_issue',
    description:
      'Report a problem with the agent platform itself (a tool that fails wrongly, a broken ' +
      'sandbox, missing access) to its operators. Not for problems in the user’s code.',
    effect: 'reply',
    input: z.strictObject({
      title: z.string().trim().min(1).max(200),
      description: z.string().trim().min(1).max(8000),
      severity: z.enum(['low', 'medium', 'high']).default('medium'),
    }),
    run: (input) => reporter.report(input),
    observe: (output) => `Reported to the platform operators (${output.id}).`,
  });
}
