import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { z } from 'zod';
import { clip, forcedToolCall } from '../agent/forced-tool-call.js';
import type { IssueInfo, PullRequestInfo } from '../pr/pr-source.js';
import type { ExtractedTestFile } from './patch-split.js';

/** The evaluation step's structured answer. */
export const prEvaluationSchema = z.object({
  is_substantial: z
    .boolean()
    .describe('whether the PR is a real, non-trivial behaviour change worth a task'),
  reason: z.string().describe('one or two sentences justifying is_substantial'),
  instruction: z.string().min(10).describe('the bug report or feature request the solver reads'),
  difficulty: z.enum(['easy', 'medium', 'hard']),
  category: z.enum(['bugfix', 'feature']),
  tags: z.array(z.string()).length(3).describe('exactly three short lowercase tags'),
  task_name: z.string().nullable().optional().describe('an optional short kebab-case name'),
});

export type PrEvaluation = z.infer<typeof prEvaluationSchema>;

/** The tool name the structured answer arrives under (scripted models call it by this name). */
export const PR_EVALUATION_TOOL = 'pr_evaluation';

/** Input caps: enough context to write a report, bounded cost. */
export const EVALUATION_LIMITS = {
  issues: 5,
  bodyChars: 2500,
  testFileChars: 3000,
  testTotalChars: 10_000,
} as const;

const SYSTEM_PROMPT = `You turn a merged pull request into a task for a coding agent.
Decide whether the change is substantial: a real behaviour change in the code (a bug fix or a feature),
not documentation, formatting, CI, dependency bumps or a one-line tweak.
Then write the instruction the agent will read, in the voice of an issue report:
- describe the observable problem: what happens now and what should happen instead;
- never name or hint at test files, and never describe the fix or how to implement it;
- any path you mention is absolute, under /app/src (the repository's root in the environment).
Rate the difficulty, pick the category, and give exactly three short lowercase tags.`;

/** The user message of the evaluation call, inputs capped by {@link EVALUATION_LIMITS}. */
export function evaluationPrompt(
  pr: PullRequestInfo,
  issues: readonly IssueInfo[],
  tests: readonly ExtractedTestFile[],
  sourceFiles: readonly string[],
): string {
  const parts = [
    `Repository: ${pr.repo}`,
    `Pull request #${pr.number}: ${pr.title}`,
    '',
    clip(pr.body || '(no description)', EVALUATION_LIMITS.bodyChars),
  ];
  for (const issue of issues.slice(0, EVALUATION_LIMITS.issues)) {
    parts.push(
      '',
      `Linked issue ${issue.repo}#${issue.number}: ${issue.title}`,
      clip(issue.body || '(no description)', EVALUATION_LIMITS.bodyChars),
    );
  }
  parts.push('', `Source files changed: ${sourceFiles.join(', ') || '(none)'}`);
  let budget: number = EVALUATION_LIMITS.testTotalChars;
  for (const test of tests) {
    if (budget <= 0) break;
    const text = clip(
      test.content.toString('utf8'),
      Math.min(EVALUATION_LIMITS.testFileChars, budget),
    );
    budget -= text.length;
    parts.push(
      '',
      `Test the solution must pass (${test.repoPath}, for your understanding only; do not mention it):`,
      text,
    );
  }
  return parts.join('\n');
}

/**
 * Asks the model for the structured evaluation of a PR: the answer must come as a call of the
 * `pr_evaluation` tool whose arguments match {@link prEvaluationSchema}. `signal` cancels it.
 */
export async function evaluatePr(
  model: BaseChatModel,
  prompt: string,
  signal?: AbortSignal,
): Promise<PrEvaluation> {
  return forcedToolCall(model, {
    tool: PR_EVALUATION_TOOL,
    description: 'Record the evaluation of the pull request.',
    schema: prEvaluationSchema,
    system: SYSTEM_PROMPT,
    prompt,
    purpose: 'evaluation',
    ...(signal ? { signal } : {}),
  });
}
