import type { Finding } from '../model/finding.model.js';
import { markSurfaced } from '../model/transitions.js';
import { parseFindingMarker, parseReviewMarker } from './markers.js';

/** A review on the pull request, as the SCM lists it. */
export interface PublishedReview {
  reviewId: string;
  body: string;
}

/** A review comment on the pull request, as the SCM lists it. */
export interface PublishedComment {
  commentId: string;
  reviewId: string | null;
  threadId?: string | null;
  body: string;
}

export interface RecognisedPublish {
  findings: Finding[];
  changed: Finding[];
  /** Findings now linked to the review (and inline comment) that published them. */
  linked: string[];
}

/**
 * Links findings to the Caravel review that already published them, read from the hidden markers
 * of the pull request's reviews and comments: after a publish whose answer was lost (a timeout,
 * a crash before the write), the retry recognises its review instead of posting it again. Only
 * findings in no review yet are linked; the rest are left as they are.
 */
export function recognisePublished(
  findings: readonly Finding[],
  published: { reviews: readonly PublishedReview[]; comments: readonly PublishedComment[] },
  at: string,
): RecognisedPublish {
  const commentOf = new Map<string, PublishedComment>();
  for (const comment of published.comments) {
    const marker = parseFindingMarker(comment.body);
    if (marker && !commentOf.has(marker.id)) commentOf.set(marker.id, comment);
  }
  const next = [...findings];
  const linked: string[] = [];
  for (const review of published.reviews) {
    const marker = parseReviewMarker(review.body);
    if (!marker) continue;
    for (const id of marker.findings) {
      const index = next.findIndex((f) => f.id === id);
      const finding = next[index];
      if (!finding || finding.surface.reviewId !== null) continue;
      const comment = commentOf.get(id);
      next[index] = markSurfaced(finding, {
        reviewId: review.reviewId,
        commentId: comment?.commentId ?? null,
        threadId: comment?.threadId ?? null,
        sha: marker.head,
        threshold: marker.threshold,
        at,
      });
      linked.push(id);
    }
  }
  const changed = next.filter((finding, i) => finding !== findings[i]);
  return { findings: next, changed, linked };
}

/** Whether one of the reviews is Caravel's (carries its review marker). */
export function hasCaravelReview(reviews: readonly PublishedReview[]): boolean {
  return reviews.some((review) => parseReviewMarker(review.body) !== null);
}
