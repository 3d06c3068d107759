-- AlterTable
ALTER TABLE "review_ledgers" ADD COLUMN     "verdict_at" TIMESTAMPTZ(6),
ADD COLUMN     "verdict_event" TEXT,
ADD COLUMN     "verdict_reason" TEXT,
ADD COLUMN     "verdict_review_id" TEXT,
ADD COLUMN     "verdict_sha" TEXT;

-- State columns (docs/db.md, "State columns"): REVIEW_VERDICT_EVENTS and REVIEW_VERDICT_REASONS.
-- The verdict is recorded whole or not at all.
ALTER TABLE "review_ledgers" ADD CONSTRAINT "review_ledgers_verdict_event_check"
    CHECK ("verdict_event" IN ('APPROVE', 'REQUEST_CHANGES', 'COMMENT'));
ALTER TABLE "review_ledgers" ADD CONSTRAINT "review_ledgers_verdict_reason_check"
    CHECK ("verdict_reason" IN ('own_pull_request', 'changes_requested', 'verdict_not_requested',
        'clean_review', 'approval_not_enabled', 'approve_with_open_findings',
        'request_changes_without_findings', 'reviewer_chose_comment'));
ALTER TABLE "review_ledgers" ADD CONSTRAINT "review_ledgers_verdict_whole_check"
    CHECK (("verdict_event" IS NULL) = ("verdict_reason" IS NULL)
        AND ("verdict_event" IS NULL) = ("verdict_sha" IS NULL)
        AND ("verdict_event" IS NULL) = ("verdict_at" IS NULL));
