-- AlterTable
ALTER TABLE "eval_runs" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'harbor',
ADD COLUMN     "schedule_id" UUID,
ADD COLUMN     "schedule_slot" TIMESTAMPTZ(6);

-- CreateTable
CREATE TABLE "eval_review_cases" (
    "run_id" UUID NOT NULL,
    "case_id" TEXT NOT NULL,
    "expected" INTEGER NOT NULL,
    "found" INTEGER NOT NULL,
    "matched" INTEGER NOT NULL,
    "precision" DOUBLE PRECISION,
    "recall" DOUBLE PRECISION,
    "f1" DOUBLE PRECISION,
    "model_calls" INTEGER NOT NULL,
    "input_tokens" BIGINT NOT NULL,
    "output_tokens" BIGINT NOT NULL,
    "cost_usd" DOUBLE PRECISION NOT NULL,
    "wall_ms" DOUBLE PRECISION NOT NULL,
    "error" TEXT,
    "detail" JSONB NOT NULL,
    "recorded_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "eval_review_cases_pkey" PRIMARY KEY ("run_id","case_id")
);

-- CreateTable
CREATE TABLE "eval_schedules" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "attempts" INTEGER NOT NULL,
    "hour" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'active',
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,
    "failed_slot" TIMESTAMPTZ(6),
    "last_error" TEXT,

    CONSTRAINT "eval_schedules_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "eval_schedules_name_key" ON "eval_schedules"("name");

-- CreateIndex
CREATE UNIQUE INDEX "eval_runs_schedule_id_schedule_slot_key" ON "eval_runs"("schedule_id", "schedule_slot");

-- AddForeignKey
ALTER TABLE "eval_runs" ADD CONSTRAINT "eval_runs_schedule_id_fkey" FOREIGN KEY ("schedule_id") REFERENCES "eval_schedules"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_review_cases" ADD CONSTRAINT "eval_review_cases_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "eval_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- State columns (docs/db.md, "State columns"): EVAL_RUN_KINDS, EVAL_SCHEDULE_STATES.
ALTER TABLE "eval_runs" ADD CONSTRAINT "eval_runs_kind_check"
    CHECK ("kind" IN ('harbor', 'review'));
ALTER TABLE "eval_schedules" ADD CONSTRAINT "eval_schedules_kind_check"
    CHECK ("kind" IN ('harbor', 'review'));
ALTER TABLE "eval_schedules" ADD CONSTRAINT "eval_schedules_state_check"
    CHECK ("state" IN ('active', 'paused'));
ALTER TABLE "eval_schedules" ADD CONSTRAINT "eval_schedules_hour_check"
    CHECK ("hour" BETWEEN 0 AND 23);
ALTER TABLE "eval_schedules" ADD CONSTRAINT "eval_schedules_attempts_check"
    CHECK ("attempts" BETWEEN 1 AND 100);
