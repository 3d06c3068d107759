import { AppError } from '@caravel/errors';
import { z } from 'zod';
import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { PlanStorePort, RunPeople, SavedPlan } from './agent-state.ports.js';
import { sanitizePlanMarkdown } from './plan-content.js';

/** What `enter_plan_mode` acknowledges. */
export interface EnterPlanModeOutput {
  planMode: true;
}

/**
 * `enter_plan_mode`: stop changing things and plan. Only on an explicit request from the user: the
 * plan-mode middleware checks that `user_request` quotes a user message and, once the call
 * succeeds, hides the mutating tools until the plan is approved.
 */
export function enterPlanModeTool(): CaravelTool<EnterPlanModeOutput> {
  return defineTool({
    name: 'enter_plan_mode',
    description:
      'Switch to plan mode: no file changes, commits or pull requests until the thread owner ' +
      'approves a plan. Use it only when the user explicitly asks for a plan first; quote their ' +
      'words in user_request.',
    effect: 'control',
    input: z.strictObject({
      user_request: z
        .string()
        .trim()
        .min(3)
        .describe("The user's request for a plan, quoted exactly."),
    }),
    run: () => Promise.resolve({ planMode: true as const }),
    observe: () =>
      'Plan mode is on. Investigate read-only, write the plan and save it with save_plan, then ' +
      'ask the thread owner to approve it.',
  });
}

/**
 * `save_plan`: store the plan as the thread's next revision (sanitised markdown, rendered by the
 * dashboard). Allowed in plan mode: it changes nothing in the repository.
 */
export function savePlanTool(store: PlanStorePort, people: RunPeople): CaravelTool<SavedPlan> {
  return defineTool({
    name: 'save_plan',
    description:
      'Save your plan for the user to review: a self-contained markdown document (context, ' +
      'steps, files to change, risks, how it will be tested). No HTML or scripts.',
    effect: 'control',
    input: z.strictObject({
      title: z.string().trim().min(1).max(200).describe('A short title.'),
      content: z.string().describe('The plan, in markdown.'),
    }),
    run: (input) =>
      store.save({
        title: input.title,
        content: sanitizePlanMarkdown(input.content),
        savedBy: people.requester,
      }),
    observe: (plan) =>
      `Saved plan revision ${plan.revision} ("${plan.title}"); it awaits the thread owner's approval.`,
  });
}

/** The shortest quote of the owner's words that can stand for their approval. */
const MIN_APPROVAL_QUOTE_CHARS = 2;

/**
 * `approve_plan`: record the thread owner's approval of the latest plan and leave plan mode. Only
 * the owner may approve, whether in the dashboard or in words in the source channel (the run's
 * requester is who approved); anyone else is refused with FORBIDDEN. The agent quotes the owner's
 * approving words, and they must be in a message the owner wrote in this run: text the agent read
 * elsewhere (an issue, a file) cannot approve for them.
 */
export function approvePlanTool(store: PlanStorePort, people: RunPeople): CaravelTool<SavedPlan> {
  return defineTool({
    name: 'approve_plan',
    description:
      'Record that the thread owner approved the latest saved plan (for example they replied ' +
      '"approved" or "go ahead"), with any feedback they gave, and leave plan mode.',
    effect: 'control',
    input: z.strictObject({
      quote: z
        .string()
        .trim()
        .min(MIN_APPROVAL_QUOTE_CHARS)
        .describe("The owner's words approving the plan, copied from their message."),
      feedback: z.string().optional().describe("The owner's comments on the plan, if any."),
    }),
    async run(input) {
      const { requester, owner } = people;
      if (requester === null || owner === null || requester !== owner) {
        throw new AppError(
          'FORBIDDEN',
          `Only the thread's owner${owner ? ` (${owner})` : ''} can approve the plan; ` +
            `this request came from ${requester ?? 'no person'}. Stay in plan mode and ask the owner.`,
        );
      }
      if (!people.wrote(owner, input.quote)) {
        throw new AppError(
          'FORBIDDEN',
          `Not approved: ${owner} did not write "${input.quote.slice(0, 200)}" in a message of ` +
            'this run. Approve only when the owner says so in their own message, quoting it.',
        );
      }
      const feedback = input.feedback?.trim() ?? '';
      return store.approveLatest({
        approvedBy: requester,
        feedback: feedback === '' ? null : feedback,
      });
    },
    observe: (plan) =>
      `Plan revision ${plan.revision} approved by ${plan.approvedBy ?? 'the owner'}; plan mode is off, carry it out.`,
  });
}
