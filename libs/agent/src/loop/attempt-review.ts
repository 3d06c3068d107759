import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessageLike } from '@langchain/core/messages';
import type { AttemptChooser, AttemptScorer, RecordedAttempt } from './retry-select.js';

// Plain role messages: LangChain turns them into its message classes inside the call, so this
// module (and the processes that only name its exports) never loads them.
const system = (content: string): BaseMessageLike => ({ role: 'system', content });
const user = (content: string): BaseMessageLike => ({ role: 'user', content });

/** SWE-agent's chooser shows a patch longer than this as invalid. */
export const MAX_CHOOSER_SUBMISSION_CHARS = 5000;

/** A patch longer than this is clipped (head and tail) before a reviewer reads it. */
const MAX_REVIEW_PATCH_CHARS = 60_000;

/** What the reviewer and chooser need: a chat model (any provider, or scripted). */
export type ReviewModel = Pick<BaseChatModel, 'invoke'>;

function textOf(message: { content: unknown }): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '',
    )
    .join('');
}

function clip(patch: string, max: number): string {
  if (patch.length <= max) return patch;
  const half = Math.floor(max / 2);
  return `${patch.slice(0, half)}\n[... ${patch.length - max} characters elided ...]\n${patch.slice(-half)}`;
}

/**
 * The score in a reviewer's answer: the last number on its last non-empty line (SWE-agent's
 * rule), or null when there is none or it falls outside `range`.
 */
export function parseScore(answer: string, range: readonly [number, number]): number | null {
  const lastLine = answer.trim().split('\n').at(-1) ?? '';
  const numbers = lastLine.match(/-?\d+(?:\.\d+)?/g);
  const value = numbers ? Number(numbers.at(-1)) : Number.NaN;
  if (!Number.isFinite(value) || value < range[0] || value > range[1]) return null;
  return value;
}

/** The choice in a chooser's answer: the last integer anywhere in it, or null. */
export function parseChoice(answer: string): number | null {
  const integers = answer.match(/\d+/g);
  return integers ? Number(integers.at(-1)) : null;
}

/** Options of {@link reviewScorer}. */
export interface ReviewScorerOptions {
  model: ReviewModel;
  /** The task the attempts worked on. */
  task: string;
  /** Independent reviews per attempt, averaged (SWE-agent: 5). */
  samples: number;
  /** Scores outside this range are invalid (default 0..10). */
  range?: readonly [number, number];
}

function reviewPrompt<T>(
  task: string,
  attempt: RecordedAttempt<T>,
  range: readonly [number, number],
) {
  return [
    system(
      'You review a proposed change to a code repository. Judge whether it solves the task ' +
        'correctly and completely, without unrelated edits. Explain briefly, then end with a ' +
        `last line holding only a score from ${range[0]} (wrong) to ${range[1]} (certainly right).`,
    ),
    user(
      `<task>\n${task}\n</task>\n\n<status>${attempt.exitStatus}</status>\n\n<patch>\n` +
        `${clip(attempt.submission ?? '', MAX_REVIEW_PATCH_CHARS)}\n</patch>`,
    ),
  ];
}

/**
 * A reviewer model as the score of an attempt: `samples` independent reviews, each parsed with
 * {@link parseScore}; the score is their mean. An attempt without a submission is not reviewed
 * (null), nor is one whose reviews all failed to give a valid score.
 */
export function reviewScorer<T>(options: ReviewScorerOptions): AttemptScorer<T> {
  const range = options.range ?? [0, 10];
  return async (attempt) => {
    if (!attempt.submission?.trim()) return null;
    const scores: number[] = [];
    for (let sample = 0; sample < options.samples; sample += 1) {
      const answer = await options.model.invoke(reviewPrompt(options.task, attempt, range));
      const score = parseScore(textOf(answer), range);
      if (score !== null) scores.push(score);
    }
    if (scores.length === 0) return null;
    return scores.reduce((sum, s) => sum + s, 0) / scores.length;
  };
}

/** Options of {@link reviewChooser}. */
export interface ReviewChooserOptions {
  model: ReviewModel;
  task: string;
}

/**
 * A chooser model picking among candidate attempts: it sees every candidate's patch (one over
 * {@link MAX_CHOOSER_SUBMISSION_CHARS} shows as invalid) and answers with the number of the best;
 * the last integer of its answer is the choice.
 */
export function reviewChooser<T>(options: ReviewChooserOptions): AttemptChooser<T> {
  return async (candidates) => {
    const shown = candidates
      .map((candidate, position) => {
        const patch = candidate.submission ?? '';
        const body =
          patch.trim() === '' || patch.length > MAX_CHOOSER_SUBMISSION_CHARS
            ? 'Solution invalid.'
            : patch;
        return `<solution number="${position}">\n${body}\n</solution>`;
      })
      .join('\n\n');
    const answer = await options.model.invoke([
      system(
        'Several attempts proposed changes for the same task. Pick the one that solves it best. ' +
          'Explain briefly, then end with the number of the best solution.',
      ),
      user(`<task>\n${options.task}\n</task>\n\n${shown}`),
    ]);
    return parseChoice(textOf(answer));
  };
}
