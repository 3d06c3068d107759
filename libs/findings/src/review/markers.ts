import { z } from 'zod';

import { findingIdSchema, severitySchema, shaSchema, sideSchema } from '../model/finding.model.js';

/** The hidden marker of a review Caravel published: which pull request, head and findings. */
export const reviewMarkerSchema = z.object({
  v: z.literal(1),
  pr: z.number().int().positive(),
  head: shaSchema,
  threshold: severitySchema,
  /** Every finding the review published, inline or in its body. */
  findings: z.array(findingIdSchema),
});
export type ReviewMarker = z.infer<typeof reviewMarkerSchema>;

/** The hidden marker of one of Caravel's inline comments: which finding, where. */
export const findingMarkerSchema = z.object({
  v: z.literal(1),
  id: findingIdSchema,
  file: z.string().min(1),
  start_line: z.number().int().min(1).nullable(),
  end_line: z.number().int().min(1).nullable(),
  side: sideSchema,
});
export type FindingMarker = z.infer<typeof findingMarkerSchema>;

const REVIEW = 'caravel-review';
const FINDING = 'caravel-finding';

/** `<!-- caravel-review {json} -->`, invisible in the rendered review. */
export function renderReviewMarker(marker: ReviewMarker): string {
  return render(REVIEW, marker);
}

/** `<!-- caravel-finding {json} -->`, invisible in the rendered comment. */
export function renderFindingMarker(marker: FindingMarker): string {
  return render(FINDING, marker);
}

/** The review marker in a review's body, or null (not Caravel's, or edited beyond reading). */
export function parseReviewMarker(body: string): ReviewMarker | null {
  return parse(REVIEW, reviewMarkerSchema, body);
}

/** The finding marker in a comment's body, or null. */
export function parseFindingMarker(body: string): FindingMarker | null {
  return parse(FINDING, findingMarkerSchema, body);
}

/**
 * JSON inside an HTML comment, with `<`, `>` and `-` written as `\u00xx` escapes: a path holding
 * `-->` or `--` cannot end or break the comment, and JSON.parse reads the escapes back.
 */
function render(name: string, payload: object): string {
  const json = JSON.stringify(payload).replace(
    /[<>-]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `<!-- ${name} ${json} -->`;
}

function parse<T>(name: string, schema: z.ZodType<T>, body: string): T | null {
  const match = new RegExp(`<!-- ${name} (\\{[^\\n]*?\\}) -->`).exec(body);
  if (!match?.[1]) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(match[1]));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
