import { AppError } from '@caravel/errors';
import { severitySchema, type ReviewEvent } from '@caravel/findings';
import { defineTool, type CaravelTool } from '@caravel/tools';
import { z } from 'zod';
import type { ThreadOutcome } from '../../publish/finding-threads.service.js';
import type { PublishResult } from '../../publish/publish-review.service.js';
import type { ReviewRunContext } from '../review-run.context.js';
import { findingOf } from './finding.tools.js';

const VERDICTS: Record<'comment' | 'approve' | 'request_changes', ReviewEvent> = {
  comment: 'COMMENT',
  approve: 'APPROVE',
  request_changes: 'REQUEST_CHANGES',
};

const publishInput = z.strictObject({
  verdict: z
    .enum(['comment', 'approve', 'request_changes'])
    .optional()
    .describe(
      'what you propose; the platform decides: approve only on a clean review where the ' +
        'repository allows it, request_changes only when a verdict was asked for',
    ),
  severity_threshold: severitySchema.optional().describe('post findings of at least this severity'),
});

function observePublish(out: PublishResult): string {
  const lines = [
    out.posted
      ? `Published review ${out.reviewId} (${out.event}, ${out.verdictReason}): ${out.surfaced.length} finding(s) surfaced.`
      : `No review posted (${out.skipReason ?? 'nothing to post'}); verdict ${out.event} (${out.verdictReason}).`,
  ];
  if (out.belowThreshold + out.overCap > 0) {
    lines.push(
      `Counted in the body, not posted: ${out.belowThreshold} below the threshold, ${out.overCap} over the cap.`,
    );
  }
  for (const u of out.unresolvable) {
    lines.push(
      `GitHub could not place ${u.findingId}: ${u.message}. Do not publish it again as is.`,
    );
  }
  for (const t of out.threads) lines.push(threadLine(t));
  return lines.join('\n');
}

const threadLine = (t: ThreadOutcome): string =>
  t.outcome === 'resolved'
    ? `${t.findingId}: thread resolved.`
    : `${t.findingId}: thread not resolved (${t.error}); the finding stays open.`;

/**
 * `publish_review`: one GitHub review of the ledger at the head. The model proposes a verdict;
 * `decideVerdict` may only lower it: an approval with any open finding (anyone's) is a comment,
 * request-changes needs an explicit ask. Findings outside the diff are never posted inline.
 */
export function publishReviewTool(context: ReviewRunContext): CaravelTool<PublishResult> {
  return defineTool({
    name: 'publish_review',
    description:
      'Publish the open findings as one GitHub review at the head, and settle the threads of ' +
      'closed ones. Call it once, when the review is complete. "success" does not mean a ' +
      'review was posted: read the result.',
    effect: 'reply',
    input: publishInput,
    run: ({ verdict, severity_threshold: threshold }) =>
      context.publish({
        ...(verdict ? { proposed: VERDICTS[verdict] } : {}),
        ...(threshold ? { threshold } : {}),
      }),
    observe: observePublish,
  });
}

const resolveInput = z.strictObject({
  finding_id: z.string().trim().min(1),
  resolution: z
    .enum(['fixed', 'dismissed'])
    .describe('fixed: a later commit fixed it; dismissed: the finding was wrong or not worth it'),
  note: z.string().trim().min(1).describe('posted verbatim as the reply in its thread'),
});

/**
 * `resolve_finding_thread`: closes a finding. The note is posted verbatim in its thread, then the
 * thread is resolved; when GitHub refuses, the finding stays open.
 */
export function resolveFindingThreadTool(context: ReviewRunContext): CaravelTool<ThreadOutcome> {
  return defineTool({
    name: 'resolve_finding_thread',
    description:
      'Close a finding: fixed by a later commit, or dismissed. The note is posted verbatim in ' +
      'its GitHub thread, then the thread is resolved.',
    effect: 'reply',
    input: resolveInput,
    async run({ finding_id: id, resolution, note }) {
      await findingOf(context, id);
      return context.threads.close(context.pullRequest, id, {
        kind: resolution === 'fixed' ? 'resolve' : 'dismiss',
        sha: context.prepared.headSha,
        note,
      });
    },
    observe: threadLine,
  });
}

const replyInput = z.strictObject({
  finding_id: z.string().trim().min(1),
  body: z.string().trim().min(1).max(10_000),
});

/** `reply_to_finding_thread`: answers in the GitHub thread of one of Caravel's findings. */
export function replyToFindingThreadTool(
  context: ReviewRunContext,
): CaravelTool<{ findingId: string; commentId: string }> {
  return defineTool({
    name: 'reply_to_finding_thread',
    description: "Reply in the GitHub thread of a published finding (e.g. to a person's question).",
    effect: 'reply',
    input: replyInput,
    async run({ finding_id: id, body }) {
      const finding = await findingOf(context, id);
      const commentId = finding.surface.commentId ?? finding.reports[0]?.commentId ?? null;
      if (commentId === null) {
        throw new AppError(
          'PRECONDITION_FAILED',
          `${id} has no thread on GitHub yet: publish first.`,
        );
      }
      const replyId = await context.github.reply(context.pullRequest, commentId, body);
      return { findingId: id, commentId: replyId };
    },
    observe: (out) => `Replied in the thread of ${out.findingId} (comment ${out.commentId}).`,
  });
}
