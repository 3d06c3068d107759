-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "heartbeat_at" TIMESTAMPTZ(6);

-- AlterTable
ALTER TABLE "threads" ADD COLUMN     "last_human_at" TIMESTAMPTZ(6),
ADD COLUMN     "reply_to" JSONB NOT NULL DEFAULT '{}';

-- CreateTable
CREATE TABLE "run_queue" (
    "run_id" UUID NOT NULL,
    "thread_id" UUID NOT NULL,
    "repository_key" TEXT NOT NULL,
    "user_key" TEXT NOT NULL,
    "command" JSONB NOT NULL,
    "enqueued_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "admitted_at" TIMESTAMPTZ(6),

    CONSTRAINT "run_queue_pkey" PRIMARY KEY ("run_id")
);

-- CreateTable
CREATE TABLE "run_notices" (
    "run_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "sent_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_notices_pkey" PRIMARY KEY ("run_id","kind")
);

-- CreateTable
CREATE TABLE "thread_wakeups" (
    "id" UUID NOT NULL,
    "thread_id" UUID NOT NULL,
    "run_id" UUID,
    "prompt" TEXT NOT NULL,
    "due_at" TIMESTAMPTZ(6) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "fired_at" TIMESTAMPTZ(6),

    CONSTRAINT "thread_wakeups_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "run_queue_admitted_at_enqueued_at_idx" ON "run_queue"("admitted_at", "enqueued_at");

-- CreateIndex
CREATE INDEX "run_queue_repository_key_admitted_at_idx" ON "run_queue"("repository_key", "admitted_at");

-- CreateIndex
CREATE INDEX "run_queue_user_key_admitted_at_idx" ON "run_queue"("user_key", "admitted_at");

-- CreateIndex
CREATE INDEX "thread_wakeups_fired_at_due_at_idx" ON "thread_wakeups"("fired_at", "due_at");

-- CreateIndex
CREATE INDEX "thread_wakeups_thread_id_created_at_idx" ON "thread_wakeups"("thread_id", "created_at");
