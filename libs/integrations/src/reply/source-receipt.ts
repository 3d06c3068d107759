import type { ReplyAdapters, ThreadSource } from './source-reply-channel.js';

/** What became of a receipt: a reaction put on the message that asked, or why there is none. */
export type ReceiptOutcome = 'reacted' | 'no_target' | 'not_configured';

/** The reaction that tells a person Caravel took their request (👀 in each source's terms). */
const EYES = { github: 'eyes', slack: 'eyes', linear: '👀' } as const;

const numeric = (value: string | number | undefined): number | undefined => {
  const number = Number(value);
  return value !== undefined && Number.isInteger(number) && number > 0 ? number : undefined;
};

/**
 * Puts 👀 on the message that started a run, at once: the GitHub comment or review comment, the
 * Slack message, the Linear comment (`replyTo` as ingress wrote it for that trigger). Each
 * source keeps one reaction per user and kind, so acknowledging twice changes nothing. A message
 * with nothing to react to (a submitted review, an assignment, Jira, Confluence) is `no_target`;
 * a source without credentials `not_configured`. Transport failures are thrown.
 */
export async function acknowledgeReceipt(
  thread: ThreadSource,
  adapters: ReplyAdapters,
): Promise<ReceiptOutcome> {
  const to = thread.replyTo;
  switch (thread.source) {
    case 'github': {
      const issueComment = numeric(to['commentId']);
      const reviewComment = numeric(to['reviewCommentId']);
      const id = issueComment ?? reviewComment;
      if (id === undefined || !thread.repository) return 'no_target';
      if (!adapters.github) return 'not_configured';
      const kind = issueComment !== undefined ? 'issue-comment' : 'review-comment';
      await adapters.github(thread.repository).react({ kind, id }, EYES.github);
      return 'reacted';
    }
    case 'slack': {
      const channel = to['channel'];
      const messageTs = to['messageTs'] ?? to['threadTs'];
      if (channel === undefined || messageTs === undefined) return 'no_target';
      if (!adapters.slack) return 'not_configured';
      const where = { channel: String(channel), threadTs: String(to['threadTs'] ?? messageTs) };
      await adapters.slack(where).addReaction(EYES.slack, String(messageTs));
      return 'reacted';
    }
    case 'linear': {
      const commentId = to['commentId'];
      if (commentId === undefined) return 'no_target';
      if (!adapters.linear) return 'not_configured';
      await adapters.linear.reactToComment(String(commentId), EYES.linear);
      return 'reacted';
    }
    default:
      return 'no_target';
  }
}
