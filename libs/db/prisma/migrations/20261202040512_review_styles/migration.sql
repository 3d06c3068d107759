-- CreateTable
CREATE TABLE "review_styles" (
    "id" UUID NOT NULL,
    "repository" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "mode" TEXT NOT NULL,
    "thread_id" UUID NOT NULL,
    "prompt" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "word_count" INTEGER NOT NULL,
    "model" TEXT NOT NULL,
    "pull_requests" JSONB NOT NULL DEFAULT '[]',
    "comment_ids" JSONB NOT NULL DEFAULT '[]',
    "reviewers" JSONB NOT NULL DEFAULT '[]',
    "counts" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_styles_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "review_styles_repository_version_key" ON "review_styles"("repository", "version");

-- The mode is a state column (docs/db.md, "State columns"): REVIEW_STYLE_MODES.
ALTER TABLE "review_styles" ADD CONSTRAINT "review_styles_mode_check"
    CHECK ("mode" IN ('bootstrap', 'continual'));
