import type { EnvelopeOf, StartRunV1 } from '@caravel/contracts';
import { pullRequestNumberOf } from '../scm/run-subject.js';

type StartRun = EnvelopeOf<typeof StartRunV1>['data'];

/**
 * The first word after the mention that makes a comment a question about the pull request, not a
 * request for work (`@caravel explain the cache`, `@caravel why is this async?`). Anything else
 * (`@caravel fix …`, `@caravel can you …`) is work for the coding agent.
 */
export const QUESTION_WORDS: readonly string[] = [
  'explain',
  'why',
  'what',
  'how',
  'where',
  'which',
  'who',
  'when',
  'describe',
  'summarize',
  'summarise',
  'ask',
];

/** A mention of anyone, as GitHub writes one (`@login`, `@app[bot]`), not an e-mail address. */
const MENTION = /(?:^|[^\w@./-])@[A-Za-z0-9][\w-]*(?:\[bot\])?(?![\w-])/;

/** A question asked on a pull request: its number and the question as written. */
export interface PullRequestQuestion {
  number: number;
  question: string;
}

/**
 * The question a run's trigger asks on a pull request, or null for anything else: the run started
 * by a GitHub comment on a pull request (its own trigger, not a batch of follow-ups, so it carries
 * the comment's pull request) whose words after its first mention open with a
 * {@link QUESTION_WORDS question word}.
 */
export function pullRequestQuestionOf(run: StartRun): PullRequestQuestion | null {
  if (run.source !== 'github' || run.subject?.kind !== 'pull_request') return null;
  const number = pullRequestNumberOf(run);
  if (number === undefined || !asksAQuestion(run.prompt)) return null;
  return { number, question: run.prompt };
}

/** True when the words after the text's first mention open with a question word. */
export function asksAQuestion(text: string): boolean {
  const mention = MENTION.exec(text);
  const after = mention ? text.slice(mention.index + mention[0].length) : text;
  const first = /^[\s,:;!.-]*([A-Za-z]+)/.exec(after)?.[1]?.toLowerCase();
  return first !== undefined && QUESTION_WORDS.includes(first);
}
