/** The verdict of a pull request's latest publish: the event, why, and whether it was posted. */
export interface ReviewVerdictView {
  event: 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT';
  reason: string;
  posted: boolean;
  /** GitHub's id of the posted review; null when none was posted. */
  reviewId: string | null;
}

interface StepResult {
  name?: unknown;
  content?: unknown;
}

const POSTED = /^Published review (\S+) \((APPROVE|REQUEST_CHANGES|COMMENT), ([a-z_]+)\)/;
const NOT_POSTED = /verdict (APPROVE|REQUEST_CHANGES|COMMENT) \(([a-z_]+)\)/;

/**
 * Reads the verdict from a reviewer step's `publish_review` result (the reviewer's observation,
 * `apps/reviewer` `observePublish`): null when the step has none or it does not say.
 */
export function verdictOfStep(data: Record<string, unknown> | null): ReviewVerdictView | null {
  const results = Array.isArray(data?.['results']) ? (data['results'] as StepResult[]) : [];
  const published = results.filter((r) => r.name === 'publish_review').at(-1);
  const content = typeof published?.content === 'string' ? published.content : '';
  const posted = POSTED.exec(content);
  if (posted) {
    const [, reviewId = '', event, reason = ''] = posted;
    return { event: event as ReviewVerdictView['event'], reason, posted: true, reviewId };
  }
  const skipped = NOT_POSTED.exec(content);
  if (!skipped) return null;
  const [, event, reason = ''] = skipped;
  return { event: event as ReviewVerdictView['event'], reason, posted: false, reviewId: null };
}
