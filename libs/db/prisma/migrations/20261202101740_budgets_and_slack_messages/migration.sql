-- CreateTable
CREATE TABLE "slack_messages" (
    "team" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "ts" TEXT NOT NULL,
    "thread_id" UUID NOT NULL,
    "deleted_at" TIMESTAMPTZ(6),
    "recorded_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "slack_messages_pkey" PRIMARY KEY ("team","channel","ts")
);

-- CreateTable
CREATE TABLE "budget_limits" (
    "scope" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "budget_usd" DOUBLE PRECISION NOT NULL,
    "updated_by" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "budget_limits_pkey" PRIMARY KEY ("scope","subject")
);

-- CreateTable
CREATE TABLE "budget_pauses" (
    "run_id" UUID NOT NULL,
    "thread_id" UUID NOT NULL,
    "budget_usd" DOUBLE PRECISION NOT NULL,
    "spent_usd" DOUBLE PRECISION NOT NULL,
    "paused_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "granted_usd" DOUBLE PRECISION,
    "granted_by" TEXT,
    "granted_at" TIMESTAMPTZ(6),
    "resumed_by" UUID,

    CONSTRAINT "budget_pauses_pkey" PRIMARY KEY ("run_id")
);

-- CreateIndex
CREATE INDEX "slack_messages_thread_id_idx" ON "slack_messages"("thread_id");

-- CreateIndex
CREATE INDEX "budget_pauses_thread_id_paused_at_idx" ON "budget_pauses"("thread_id", "paused_at");

-- Hand-written: the closed set of budget scopes (BUDGET_SCOPES in
-- libs/db/src/repositories/states.ts), positive limits, and a grant that names who granted it.
ALTER TABLE "budget_limits" ADD CONSTRAINT "budget_limits_scope_check"
  CHECK ("scope" IN ('team', 'repository', 'person'));

ALTER TABLE "budget_limits" ADD CONSTRAINT "budget_limits_budget_usd_check"
  CHECK ("budget_usd" > 0);

ALTER TABLE "budget_pauses" ADD CONSTRAINT "budget_pauses_amounts_check"
  CHECK ("budget_usd" >= 0 AND "spent_usd" >= 0 AND ("granted_usd" IS NULL OR "granted_usd" > 0));

ALTER TABLE "budget_pauses" ADD CONSTRAINT "budget_pauses_grant_check"
  CHECK (("granted_usd" IS NULL) = ("granted_by" IS NULL) AND ("granted_usd" IS NULL) = ("granted_at" IS NULL));
