import { placeOf, type ExpectedDefect, type ReviewedFinding } from '@caravel/evals';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';

/** The judge's standing instruction. */
export const JUDGE_PROMPT = [
  'You grade a code reviewer. You are shown a known defect of a pull request and a finding the',
  'reviewer filed at an overlapping place. Answer YES when the finding points out that defect',
  '(the same problem, even in other words), NO when it is about something else. Answer with',
  'YES or NO on the first line, then one sentence why.',
].join(' ');

/** A judge's answer on one pair. */
export interface JudgeVerdict {
  accepted: boolean;
  answer: string;
}

/** Asks whether a finding is the defect; one call per pair whose places overlap. */
export type ReviewJudge = (
  defect: ExpectedDefect,
  finding: ReviewedFinding,
) => Promise<JudgeVerdict>;

function question(defect: ExpectedDefect, finding: ReviewedFinding): string {
  return [
    `Known defect at ${placeOf(defect)}${defect.severity ? ` (${defect.severity})` : ''}:`,
    defect.description ?? '(no description: judge by the place and the code it names)',
    '',
    `Finding at ${placeOf(finding)} (${finding.severity}, ${finding.category}): ${finding.title}`,
    finding.description,
  ].join('\n');
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => (part as { text?: string }).text ?? '').join('')
      : '';

/**
 * A judge model: YES accepts the pair, anything else refuses it (an unclear answer is no match:
 * the place alone already had its say).
 */
export function modelJudge(model: BaseChatModel): ReviewJudge {
  return async (defect, finding) => {
    const reply = await model.invoke([
      { role: 'system', content: JUDGE_PROMPT },
      { role: 'user', content: question(defect, finding) },
    ]);
    const answer = textOf(reply.content).trim();
    return { accepted: /^\W*yes\b/i.test(answer), answer: answer.slice(0, 500) };
  };
}
