import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { z } from 'zod';
import { clip, forcedToolCall } from '../agent/forced-tool-call.js';
import { classesFor, trialPassed, type TrialClass } from './task-verdict.js';

/** The tool name the classification arrives under (scripted models call it by this name). */
export const TRIAL_CLASSIFICATION_TOOL = 'trial_classification';

/** What the classifier reads of one trial. */
export interface TrialEvidence {
  readonly instruction: string;
  readonly reward: number | null;
  /** Why there is no reward, when there is none. */
  readonly rewardError?: string;
  /** The reference fix (solution/fix.patch). */
  readonly referenceFix: string;
  /** The agent's change to the repository. */
  readonly agentDiff: string;
  /** Files the agent changed that are test files. */
  readonly testFilesTouched: readonly string[];
  /** The agent's steps, condensed. */
  readonly trajectory: string;
  /** The end of the verifier's output. */
  readonly testOutput: string;
  /** Why the agent's session ended early, if it did. */
  readonly agentError?: string;
}

/** The classifier's structured answer. */
export interface TrialClassification {
  readonly classification: TrialClass;
  readonly reason: string;
  readonly evidence: string;
  readonly recommendation?: string;
}

const LIMITS = { fix: 4000, diff: 6000, trajectory: 6000, testOutput: 4000 } as const;

const SYSTEM_PROMPT = `You review one trial of a coding agent on an evaluation task and decide whose fault its outcome is.
The reward is the ground truth for pass or fail; you decide only whether the outcome is legitimate.
- good_success: the agent fixed the problem the instruction describes.
- bad_success: the tests passed without a genuine fix (tests edited, special-cased, the check too weak).
- good_failure: the agent's own limits (wrong fix, incomplete work, gave up, ran out of steps).
- bad_failure: the task's fault: tests that demand what the instruction never says, flaky or broken tests,
  a broken environment, a missing dependency, an impossible requirement.
Quote the evidence (test output lines, diff hunks) and recommend a fix to the task when it is at fault.`;

function schemaFor(passed: boolean) {
  return z.object({
    classification: z.enum(classesFor(passed)),
    reason: z.string().min(1).describe('one or two sentences'),
    evidence: z.string().describe('quoted lines from the test output or the diff'),
    recommendation: z.string().optional().describe('how to repair the task, when it is at fault'),
  });
}

/** The user message of the classification call, inputs capped. */
export function classificationPrompt(evidence: TrialEvidence): string {
  const reward =
    evidence.reward === null ? `none (${evidence.rewardError ?? 'no reward'})` : evidence.reward;
  return [
    `Reward: ${reward} (${trialPassed(evidence.reward) ? 'PASSED' : 'FAILED'})`,
    evidence.agentError ? `The agent's session ended early: ${evidence.agentError}` : '',
    evidence.testFilesTouched.length > 0
      ? `The agent changed test files: ${evidence.testFilesTouched.join(', ')}`
      : '',
    '',
    'Instruction the agent read:',
    evidence.instruction,
    '',
    'Reference fix:',
    clip(evidence.referenceFix, LIMITS.fix),
    '',
    "The agent's change:",
    clip(evidence.agentDiff || '(no change)', LIMITS.diff),
    '',
    "The agent's steps:",
    clip(evidence.trajectory || '(none)', LIMITS.trajectory),
    '',
    'Test output (end):',
    clip(evidence.testOutput || '(none)', LIMITS.testOutput),
  ]
    .filter((line, i, all) => line !== '' || all[i - 1] !== '')
    .join('\n');
}

/**
 * Classifies a trial with one model call answered through the `trial_classification` tool, as
 * the PR evaluation does. The tool offers only the two classes the reward allows, so a passed
 * trial is a success and a failed one a failure whatever the model thinks.
 */
export async function classifyTrial(
  model: BaseChatModel,
  evidence: TrialEvidence,
): Promise<TrialClassification> {
  const answer = await forcedToolCall(model, {
    tool: TRIAL_CLASSIFICATION_TOOL,
    description: 'Record the classification of the trial.',
    schema: schemaFor(trialPassed(evidence.reward)),
    system: SYSTEM_PROMPT,
    prompt: classificationPrompt(evidence),
    purpose: 'classification',
  });
  const { recommendation, ...rest } = answer;
  return { ...rest, ...(recommendation ? { recommendation } : {}) };
}
