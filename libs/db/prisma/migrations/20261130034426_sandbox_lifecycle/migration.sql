-- CreateTable
CREATE TABLE "retired_sandboxes" (
    "id" UUID NOT NULL,
    "thread_id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "kept" BOOLEAN NOT NULL,
    "snapshot_path" TEXT,
    "snapshot_commit" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL,
    "retired_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retired_sandboxes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "retired_sandboxes_thread_id_retired_at_idx" ON "retired_sandboxes"("thread_id", "retired_at");

-- CreateIndex
CREATE INDEX "sandboxes_last_used_at_idx" ON "sandboxes"("last_used_at");
