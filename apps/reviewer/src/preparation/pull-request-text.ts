import type { PullRequestDetails, ScmComment } from '@caravel/tools';
import { capped, type PullRequestText } from './review-context.js';

/** The conversation's latest comments a review reads (older ones are rarely about the code). */
export const PULL_REQUEST_COMMENTS_READ = 20;
/** A description longer than this is cut: it is context to weigh, not the change itself. */
const BODY_CHARS = 20_000;
/** A comment longer than this is cut (logs pasted into a conversation). */
export const COMMENT_CHARS = 4_000;

/** What a review reads of a pull request's conversation on its code host. */
export interface PullRequestConversation {
  listIssueComments(number: number, limit: number): Promise<ScmComment[]>;
}

/**
 * The pull request's title, description and latest conversation comments, as the review brief
 * wraps them (untrusted, attributed). Comments of bots (CI reports, coverage) and Caravel's own
 * are left out: the ledger already holds what Caravel said, and a bot's report is not a person's
 * word on the change.
 */
export async function pullRequestTextOf(
  conversation: PullRequestConversation,
  pullRequest: Pick<PullRequestDetails, 'number' | 'title' | 'body' | 'author'>,
  botLogin: string,
): Promise<PullRequestText> {
  const own = botLogin.toLowerCase();
  const comments = await conversation.listIssueComments(
    pullRequest.number,
    PULL_REQUEST_COMMENTS_READ,
  );
  return {
    title: pullRequest.title,
    body: capped(pullRequest.body, BODY_CHARS),
    author: pullRequest.author ?? 'ghost',
    comments: comments
      .filter((comment) => !comment.bot && comment.author.toLowerCase() !== own)
      .map((comment) => ({ author: comment.author, body: capped(comment.body, COMMENT_CHARS) })),
  };
}
