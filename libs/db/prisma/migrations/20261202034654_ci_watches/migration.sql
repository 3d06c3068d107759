-- CreateTable
CREATE TABLE "ci_watches" (
    "id" UUID NOT NULL,
    "pull_request_key" TEXT NOT NULL,
    "repository_owner" TEXT NOT NULL,
    "repository_name" TEXT NOT NULL,
    "pull_request" INTEGER NOT NULL,
    "pull_request_url" TEXT NOT NULL,
    "thread_id" UUID NOT NULL,
    "asked" BOOLEAN NOT NULL DEFAULT false,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "stopped_reason" TEXT,
    "autofix" BOOLEAN,
    "head_sha" TEXT,
    "agent_heads" JSONB NOT NULL DEFAULT '[]',
    "checks" JSONB NOT NULL DEFAULT '[]',
    "mergeable" BOOLEAN,
    "fix_runs" INTEGER NOT NULL DEFAULT 0,
    "limit_announced" BOOLEAN NOT NULL DEFAULT false,
    "handled_keys" JSONB NOT NULL DEFAULT '[]',
    "reruns_at_head" INTEGER NOT NULL DEFAULT 0,
    "green_fingerprint" TEXT,
    "green_since" TIMESTAMPTZ(6),
    "announced_head" TEXT,
    "retry_at" TIMESTAMPTZ(6),
    "version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ci_watches_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ci_watches_pull_request_key_key" ON "ci_watches"("pull_request_key");

-- CreateIndex
CREATE INDEX "ci_watches_repository_owner_repository_name_head_sha_idx" ON "ci_watches"("repository_owner", "repository_name", "head_sha");

-- CreateIndex
CREATE INDEX "ci_watches_active_retry_at_idx" ON "ci_watches"("active", "retry_at");
