-- CreateTable
CREATE TABLE "trigger_refusals" (
    "trigger_id" UUID NOT NULL,
    "thread_id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "rule" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "refused_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "trigger_refusals_pkey" PRIMARY KEY ("trigger_id")
);

-- CreateIndex
CREATE INDEX "trigger_refusals_thread_id_idx" ON "trigger_refusals"("thread_id");

-- CreateIndex
CREATE INDEX "trigger_refusals_refused_at_idx" ON "trigger_refusals"("refused_at");
