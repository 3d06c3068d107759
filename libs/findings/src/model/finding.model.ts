import { z } from 'zod';

/** How bad a finding is, in increasing order. */
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
/** How sure the reviewer is. Recorded for calibration; it never gates publishing or the verdict. */
export const CONFIDENCES = ['low', 'medium', 'high'] as const;
/** RIGHT: lines of the new version (added or context); LEFT: lines of the old one (removed or context). */
export const SIDES = ['LEFT', 'RIGHT'] as const;
export const FINDING_STATUSES = ['open', 'resolved', 'dismissed'] as const;
/** Where the finding stands on GitHub (or the SCM) as Caravel's own inline comment. */
export const SURFACE_STATES = [
  'not_surfaced',
  'surfaced',
  'resolve_pending',
  'resolved',
  'error',
] as const;
/** Why the reviewer must look at an open finding again before it trusts it. */
export const RECHECK_REASONS = [
  /** A push changed or rewrote the anchored lines. */
  'lines_changed',
  /** The anchor is no longer inside the pull request's diff. */
  'no_longer_in_diff',
  /** Someone replied to the finding's thread. */
  'reply',
  /** Taken from another reviewer's comment: not yet checked against the code. */
  'ingested',
] as const;

export type Severity = (typeof SEVERITIES)[number];
export type Confidence = (typeof CONFIDENCES)[number];
export type Side = (typeof SIDES)[number];
export type FindingStatus = (typeof FINDING_STATUSES)[number];
export type SurfaceState = (typeof SURFACE_STATES)[number];
export type RecheckReason = (typeof RECHECK_REASONS)[number];

export const FINDING_ID_PATTERN = /^f_[0-9a-f]{10}$/;
export const FINGERPRINT_PATTERN = /^v1:[0-9a-f]{64}$/;
/** Longest title, in characters (UTF-16 code units, as GitHub counts them). */
export const TITLE_MAX_CHARS = 120;
/** Longest suggestion in lines; a longer one is dropped, never cut. */
export const SUGGESTION_MAX_LINES = 4;

/** Rank of a severity (`low` = 0 … `critical` = 3), for thresholds and sorting. */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

export const severitySchema = z.enum(SEVERITIES);
export const confidenceSchema = z.enum(CONFIDENCES);
export const sideSchema = z.enum(SIDES);
export const findingIdSchema = z.string().regex(FINDING_ID_PATTERN, 'f_ and 10 hex digits');
/** A full commit id: 40 hex digits (SHA-1) or 64 (SHA-256 repositories). */
export const shaSchema = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'a full commit sha');
const lineSchema = z.number().int().min(1);
const timestampSchema = z.iso.datetime({ offset: true });
/** Ids the SCM gave (REST ids as decimal strings, GraphQL node ids as they are). */
const scmIdSchema = z.string().min(1);

/** Who wrote something: Caravel's reviewer, a person, or another bot (Copilot, CodeRabbit, …). */
export const actorSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('caravel') }),
  z.strictObject({ kind: z.literal('person'), login: z.string().min(1) }),
  z.strictObject({
    kind: z.literal('bot'),
    login: z.string().min(1),
    /** Which reviewer it is (`copilot`, `coderabbit`, `bugbot`, …; `other` when unknown). */
    bot: z.string().min(1),
  }),
]);
export type Actor = z.infer<typeof actorSchema>;

const anchorShape = {
  file: z.string().min(1),
  startLine: lineSchema.nullable(),
  endLine: lineSchema.nullable(),
  side: sideSchema,
};

/**
 * Lines of one file on one side of a diff; both lines null for a file-level anchor. Ranges are
 * 1-based and inclusive, `startLine <= endLine`.
 */
export const anchorSchema = z
  .strictObject(anchorShape)
  .superRefine((anchor, ctx) => checkLines(anchor, ctx));
export type Anchor = z.infer<typeof anchorSchema>;

/** An anchor and the commit whose diff its lines refer to. */
export const placedAnchorSchema = z
  .strictObject({ ...anchorShape, sha: shaSchema })
  .superRefine((anchor, ctx) => checkLines(anchor, ctx));
export type PlacedAnchor = z.infer<typeof placedAnchorSchema>;

function checkLines(
  anchor: { startLine: number | null; endLine: number | null },
  ctx: z.RefinementCtx,
): void {
  if ((anchor.startLine === null) !== (anchor.endLine === null)) {
    ctx.addIssue({ code: 'custom', message: 'startLine and endLine are both set or both null' });
  } else if (anchor.startLine !== null && anchor.endLine !== null) {
    if (anchor.startLine > anchor.endLine) {
      ctx.addIssue({ code: 'custom', message: 'startLine must not be after endLine' });
    }
  }
}

/** How a finding stopped being open. A commit's doing and a person's decision are kept apart. */
export const resolutionSchema = z.discriminatedUnion('kind', [
  /** The reviewer checked the code at `sha` and the problem is gone. */
  z.strictObject({
    kind: z.literal('fixed_by_commit'),
    sha: shaSchema,
    note: z.string().min(1),
    by: actorSchema,
    at: timestampSchema,
  }),
  /** A push deleted every anchored line (or the file) with nothing in their place. */
  z.strictObject({ kind: z.literal('code_removed'), sha: shaSchema, at: timestampSchema }),
  /** Someone decided it is not a problem or not worth fixing (a person, or Caravel retracting). */
  z.strictObject({
    kind: z.literal('dismissed'),
    sha: shaSchema,
    note: z.string().min(1),
    by: actorSchema,
    at: timestampSchema,
  }),
]);
export type Resolution = z.infer<typeof resolutionSchema>;

/** Caravel's own inline comment for the finding and its state on the SCM. */
export const surfaceSchema = z.strictObject({
  state: z.enum(SURFACE_STATES),
  reviewId: scmIdSchema.nullable(),
  commentId: scmIdSchema.nullable(),
  threadId: scmIdSchema.nullable(),
  severityThresholdAtPublish: severitySchema.nullable(),
  surfacedAtSha: shaSchema.nullable(),
  /** The reply that carried the resolution note, once posted (so a retry does not post it twice). */
  resolutionCommentId: scmIdSchema.nullable(),
  lastSyncAt: timestampSchema.nullable(),
  lastError: z.string().nullable(),
});
export type Surface = z.infer<typeof surfaceSchema>;

/** A review comment that raised the finding (Caravel's own is in `surface`, not here). */
export const reportSchema = z.strictObject({
  author: actorSchema,
  commentId: scmIdSchema,
  reviewId: scmIdSchema.nullable(),
  threadId: scmIdSchema.nullable(),
  url: z.string().nullable(),
  /** The commit the comment was made on, when the SCM says. */
  sha: shaSchema.nullable(),
  at: timestampSchema,
});
export type Report = z.infer<typeof reportSchema>;

/** A reply in the finding's thread, recorded once per comment id. */
export const interactionSchema = z.strictObject({
  kind: z.enum(['human_reply', 'bot_reply']),
  commentId: scmIdSchema,
  inReplyToId: scmIdSchema.nullable(),
  author: actorSchema,
  body: z.string(),
  createdAt: timestampSchema,
  /** True until the reviewer has looked at the finding again after this reply. */
  needsReassessment: z.boolean(),
});
export type Interaction = z.infer<typeof interactionSchema>;

/**
 * One finding of the ledger: a problem a reviewer (Caravel, a person or another bot) raised on a
 * pull request, followed across pushes until it is resolved or dismissed. One row per finding.
 */
export const findingSchema = z
  .strictObject({
    id: findingIdSchema,
    /** `v1:` + SHA-256 of the identity's canonical JSON (see `fingerprintOf`). */
    fingerprint: z.string().regex(FINGERPRINT_PATTERN),
    author: actorSchema,
    severity: severitySchema,
    confidence: confidenceSchema,
    category: z.string().min(1).max(60),
    title: z.string().min(1).max(TITLE_MAX_CHARS),
    /** Where it was filed, at `firstSeenSha`; `anchor` follows the code across pushes. */
    ...anchorShape,
    /** Whether `anchor` is inside the pull request's diff at `anchor.sha` (inline-commentable). */
    inDiff: z.boolean(),
    description: z.string().min(1),
    suggestion: z.string().nullable(),
    status: z.enum(FINDING_STATUSES),
    resolution: resolutionSchema.nullable(),
    firstSeenSha: shaSchema,
    lastConfirmedSha: shaSchema,
    anchor: placedAnchorSchema,
    /** The hunk the anchor sat in when filed, as the diff showed it (context for replies and UIs). */
    diffHunk: z.string().nullable(),
    recheck: z.array(z.enum(RECHECK_REASONS)),
    surface: surfaceSchema,
    reports: z.array(reportSchema),
    interactions: z.array(interactionSchema),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  })
  .superRefine((finding, ctx) => {
    checkLines(finding, ctx);
    const kind = finding.resolution?.kind ?? null;
    const consistent =
      finding.status === 'open'
        ? kind === null
        : finding.status === 'dismissed'
          ? kind === 'dismissed'
          : kind === 'fixed_by_commit' || kind === 'code_removed';
    if (!consistent) {
      ctx.addIssue({
        code: 'custom',
        path: ['resolution'],
        message: `status ${finding.status} does not go with resolution ${kind ?? 'null'}`,
      });
    }
  });
export type Finding = z.infer<typeof findingSchema>;

/** A surface for a finding Caravel has not published. */
export function notSurfaced(): Surface {
  return {
    state: 'not_surfaced',
    reviewId: null,
    commentId: null,
    threadId: null,
    severityThresholdAtPublish: null,
    surfacedAtSha: null,
    resolutionCommentId: null,
    lastSyncAt: null,
    lastError: null,
  };
}

/** The anchor's lines without the sha. */
export function anchorOf(finding: Pick<Finding, 'anchor'>): Anchor {
  const { file, startLine, endLine, side } = finding.anchor;
  return { file, startLine, endLine, side };
}
