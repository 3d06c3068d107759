-- CreateTable
CREATE TABLE "eval_proposals" (
    "id" UUID NOT NULL,
    "suite" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "note" TEXT,
    "proposed_by" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "baseline_run_id" UUID,
    "candidate_run_id" UUID,
    "max_drop" DOUBLE PRECISION,
    "alpha" DOUBLE PRECISION,
    "delta" DOUBLE PRECISION,
    "p_value" DOUBLE PRECISION,
    "reason" TEXT,
    "numbers" JSONB,
    "created_at" TIMESTAMPTZ(6) NOT NULL,
    "decided_at" TIMESTAMPTZ(6),

    CONSTRAINT "eval_proposals_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "eval_proposals_suite_status_decided_at_idx" ON "eval_proposals"("suite", "status", "decided_at");

-- The status is a state column (docs/db.md, "State columns"): EVAL_PROPOSAL_STATUSES.
ALTER TABLE "eval_proposals" ADD CONSTRAINT "eval_proposals_status_check"
    CHECK ("status" IN ('pending', 'accepted', 'refused'));
