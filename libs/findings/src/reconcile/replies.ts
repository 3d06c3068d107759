import type { Actor, Finding, Interaction } from '../model/finding.model.js';

/** A reply in a review thread, as the SCM lists it. */
export interface ThreadReply {
  commentId: string;
  /** The thread's first comment (GitHub's `in_reply_to_id`). */
  inReplyToId: string;
  /** The thread's id (GitHub GraphQL), when known. */
  threadId?: string | null;
  author: Actor;
  body: string;
  createdAt: string;
}

export interface RecordRepliesResult {
  findings: Finding[];
  /** The findings that changed (the rows to write). */
  changed: Finding[];
  /** Replies recorded now. */
  recorded: ThreadReply[];
  /** Replies in threads of no finding of the ledger. */
  unmatched: ThreadReply[];
}

/**
 * Records people's and bots' replies in the threads of the ledger's findings (Caravel's own
 * comments, its threads and the ones it took in from other reviewers), once per comment id, and
 * marks each finding replied to for reassessment (`recheck: reply`), closed ones included: a reply
 * may say a fix is not one. Caravel's own replies (resolution notes) are not interactions.
 */
export function recordReplies(
  findings: readonly Finding[],
  replies: readonly ThreadReply[],
  at: string,
): RecordRepliesResult {
  const known = new Set(findings.flatMap((f) => f.interactions.map((i) => i.commentId)));
  const next = [...findings];
  const recorded: ThreadReply[] = [];
  const unmatched: ThreadReply[] = [];
  for (const reply of [...replies].sort(byCreation)) {
    if (reply.author.kind === 'caravel' || known.has(reply.commentId)) continue;
    const index = next.findIndex((finding) => inThread(finding, reply));
    const finding = next[index];
    if (!finding) {
      unmatched.push(reply);
      continue;
    }
    known.add(reply.commentId);
    recorded.push(reply);
    next[index] = withReply(finding, reply, at);
  }
  const changed = next.filter((finding, i) => finding !== findings[i]);
  return { findings: next, changed, recorded, unmatched };
}

/** Whether a reply belongs to the finding's thread (by its first comment, or the thread id). */
export function inThread(
  finding: Finding,
  reply: Pick<ThreadReply, 'inReplyToId' | 'threadId'>,
): boolean {
  const roots = [finding.surface.commentId, ...finding.reports.map((r) => r.commentId)];
  if (roots.includes(reply.inReplyToId)) return true;
  const threadId = reply.threadId ?? null;
  if (threadId === null) return false;
  return (
    finding.surface.threadId === threadId || finding.reports.some((r) => r.threadId === threadId)
  );
}

function withReply(finding: Finding, reply: ThreadReply, at: string): Finding {
  const interaction: Interaction = {
    kind: reply.author.kind === 'bot' ? 'bot_reply' : 'human_reply',
    commentId: reply.commentId,
    inReplyToId: reply.inReplyToId,
    author: reply.author,
    body: reply.body,
    createdAt: reply.createdAt,
    needsReassessment: true,
  };
  return {
    ...finding,
    interactions: [...finding.interactions, interaction],
    recheck: finding.recheck.includes('reply') ? finding.recheck : [...finding.recheck, 'reply'],
    updatedAt: at,
  };
}

function byCreation(a: ThreadReply, b: ThreadReply): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0;
}
