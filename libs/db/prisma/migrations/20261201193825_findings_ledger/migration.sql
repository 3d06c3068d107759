-- CreateTable
CREATE TABLE "review_ledgers" (
    "thread_id" UUID NOT NULL,
    "owner" TEXT NOT NULL,
    "repo" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "head_sha" TEXT,
    "last_reviewed_sha" TEXT,
    "merge_base_sha" TEXT,
    "check_run_id" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_ledgers_pkey" PRIMARY KEY ("thread_id")
);

-- CreateTable
CREATE TABLE "findings" (
    "id" TEXT NOT NULL,
    "thread_id" UUID NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "author" JSONB NOT NULL,
    "severity" TEXT NOT NULL,
    "confidence" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "start_line" INTEGER,
    "end_line" INTEGER,
    "side" TEXT NOT NULL,
    "in_diff" BOOLEAN NOT NULL,
    "description" TEXT NOT NULL,
    "suggestion" TEXT,
    "status" TEXT NOT NULL,
    "resolution" JSONB,
    "first_seen_sha" TEXT NOT NULL,
    "last_confirmed_sha" TEXT NOT NULL,
    "anchor_file" TEXT NOT NULL,
    "anchor_start_line" INTEGER,
    "anchor_end_line" INTEGER,
    "anchor_side" TEXT NOT NULL,
    "anchor_sha" TEXT NOT NULL,
    "diff_hunk" TEXT,
    "recheck" JSONB NOT NULL DEFAULT '[]',
    "surface_state" TEXT NOT NULL DEFAULT 'not_surfaced',
    "surface_review_id" TEXT,
    "surface_comment_id" TEXT,
    "surface_thread_id" TEXT,
    "surface_threshold" TEXT,
    "surface_sha" TEXT,
    "surface_resolution_comment_id" TEXT,
    "surface_last_sync_at" TIMESTAMPTZ(6),
    "surface_last_error" TEXT,
    "reports" JSONB NOT NULL DEFAULT '[]',
    "interactions" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(6) NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "findings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "review_ledgers_owner_repo_number_key" ON "review_ledgers"("owner", "repo", "number");

-- CreateIndex
CREATE INDEX "findings_thread_id_status_idx" ON "findings"("thread_id", "status");

-- CreateIndex
CREATE INDEX "findings_thread_id_fingerprint_idx" ON "findings"("thread_id", "fingerprint");

-- CreateIndex
CREATE INDEX "findings_surface_comment_id_idx" ON "findings"("surface_comment_id");

-- AddForeignKey
ALTER TABLE "findings" ADD CONSTRAINT "findings_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "review_ledgers"("thread_id") ON DELETE CASCADE ON UPDATE CASCADE;
