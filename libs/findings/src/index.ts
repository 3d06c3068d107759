export { findingsError, findingsErrorReason, type FindingsErrorReason } from './findings.errors.js';
export {
  actorSchema,
  anchorOf,
  anchorSchema,
  CONFIDENCES,
  confidenceSchema,
  FINDING_ID_PATTERN,
  FINDING_STATUSES,
  findingIdSchema,
  findingSchema,
  FINGERPRINT_PATTERN,
  interactionSchema,
  notSurfaced,
  placedAnchorSchema,
  RECHECK_REASONS,
  reportSchema,
  resolutionSchema,
  SEVERITIES,
  severityRank,
  severitySchema,
  shaSchema,
  SIDES,
  sideSchema,
  SUGGESTION_MAX_LINES,
  SURFACE_STATES,
  surfaceSchema,
  TITLE_MAX_CHARS,
  type Actor,
  type Anchor,
  type Confidence,
  type Finding,
  type FindingStatus,
  type Interaction,
  type PlacedAnchor,
  type RecheckReason,
  type Report,
  type Resolution,
  type Severity,
  type Side,
  type Surface,
  type SurfaceState,
} from './model/finding.model.js';
export { canonicalJson, type CanonicalValue } from './model/canonical-json.js';
export {
  FINGERPRINT_VERSION,
  fingerprintOf,
  fingerprintPayload,
  matchingFingerprints,
  newFindingId,
  normalizeDescription,
  type FindingIdentity,
} from './model/fingerprint.js';
export {
  parseUnifiedDiff,
  REVIEW_DIFF_FLAGS,
  type DiffFile,
  type DiffFileStatus,
  type DiffHunk,
  type DiffLine,
  type DiffLineKind,
  type ParseDiffOptions,
} from './diff/unified-diff.js';
export {
  changedLineSet,
  findChangedFile,
  sideRanges,
  touchesChange,
  type ChangedFile,
  type ChangedLineSet,
  type HunkSpan,
  type LineRange,
} from './diff/changed-lines.js';
export {
  anchorError,
  assertAnchor,
  validateAnchor,
  type AnchorCheck,
  type AnchorRejection,
} from './diff/anchor.js';
export { mapAnchor, mapOldLine, type AnchorMove } from './diff/line-map.js';
export {
  actorLabel,
  classifyAuthor,
  KNOWN_REVIEW_BOTS,
  sameActor,
  type AuthorInfo,
} from './model/authors.js';
export {
  fileFinding,
  findingDraftSchema,
  parseFindingDraft,
  type FilingContext,
  type FilingOutcome,
  type FindingDraft,
} from './model/filing.js';
export {
  confirmFinding,
  dismissFinding,
  findingRevisionSchema,
  hasPendingReplies,
  markResolutionPosted,
  markSurfaced,
  markSurfaceError,
  markThreadResolved,
  pendingSurfaceWork,
  reopenFinding,
  resolveFinding,
  reviseFinding,
  type FindingRevision,
} from './model/transitions.js';
export {
  findFinding,
  findingsNeedingAttention,
  meetsThreshold,
  openFindings,
  sortFindings,
} from './model/ledger.js';
export {
  reanchorFinding,
  reconcileFindings,
  type ReconcileChange,
  type ReconcileInput,
  type ReconcileResult,
} from './reconcile/reconcile.js';
export {
  inThread,
  recordReplies,
  type RecordRepliesResult,
  type ThreadReply,
} from './reconcile/replies.js';
export {
  ingestReviewComments,
  type IngestContext,
  type IngestOutcome,
  type IngestResult,
  type ReviewComment,
} from './reconcile/ingest.js';
export { readReviewComment, type CommentReading } from './reconcile/comment-text.js';
export {
  findingMarkerSchema,
  parseFindingMarker,
  parseReviewMarker,
  renderFindingMarker,
  renderReviewMarker,
  reviewMarkerSchema,
  type FindingMarker,
  type ReviewMarker,
} from './review/markers.js';
export {
  inlineCommentBody,
  linesLabel,
  severityMark,
  suggestionBlock,
} from './review/comment-body.js';
export { reviewBody, type ReviewBodyInput } from './review/review-body.js';
export {
  DEFAULT_SEVERITY_THRESHOLD,
  isAnchorRejection,
  planReview,
  REVIEW_FINDING_CAP,
  type ReviewCommentPayload,
  type ReviewPayload,
  type ReviewPlan,
  type ReviewPlanInput,
} from './review/review-plan.js';
export {
  approvalsToDismiss,
  decideVerdict,
  REVIEW_EVENTS,
  VERDICT_REASONS,
  type ReviewEvent,
  type StandingApproval,
  type VerdictDecision,
  type VerdictInput,
  type VerdictReason,
} from './review/verdict.js';
export {
  hasCaravelReview,
  recognisePublished,
  type PublishedComment,
  type PublishedReview,
  type RecognisedPublish,
} from './review/published.js';
